// Package faults holds the mechanisms of the suite's faults: cluster faults
// that act on brokers or links through the backend's capabilities, what each
// needs of a backend, the Kafka-aware toxic (kafkatoxic/), and the
// orchestrator's half of worker faults (the zombie). Which fault a scenario
// runs, and what each mode must show under it, is the scenario catalog's
// business (package scenarios); nothing here knows a scenario's name.
//
// Each cluster fault is one-shot, heals before it returns, and says what it
// did: every firing and heal goes onto the cell's timeline as an event and
// into the typed Report that Inject returns (etcd's failpoints return their
// report the same way), so nothing pairs events by their names afterwards.
package faults

import (
	"context"
	"maps"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Mechanism is a cluster fault: what it does and what it needs.
type Mechanism struct {
	// Act applies the fault, waits and heals; it records each firing and
	// heal through fired and healed.
	Act func(ctx context.Context, env Env) error
	// Needs says whether a backend can run the fault: "" means yes,
	// anything else is the N/A reason.
	Needs func(c cluster.Cluster) string
	// Scope is what the fault disturbs (scope.go); the zero value runs the
	// cell alone.
	Scope Scope
	// TakesHold says Act calls Env.TookHold itself, at its own moment (case
	// 4: once the markers are held, before any commit it waits for; the
	// stale-write faults: once the leaderships they need are in place);
	// another fault with a trigger (UnderLoad) takes hold at the trigger,
	// and any other fault holds no input back.
	TakesHold bool
	// ChangesRelease says Act leaves the brokers on another Kafka release
	// (a rolling upgrade): its row runs last, on a cluster of its own, so
	// no other cell runs on a release it does not name.
	ChangesRelease bool
	// Align, for a shared fault, places the other cells (Env.Cells) so that
	// what Act aims at in Env.Topology is the same broker in each of them.
	// It runs before any worker starts, and draws from an Env.Rand seeded
	// as Act's, so it aims where Act will. Nil: nothing to place.
	Align func(ctx context.Context, env Env) error
}

// Env is what a cluster fault acts on.
type Env struct {
	// Name is the scenario's name: it labels the fault's events.
	Name     string
	Cluster  cluster.Cluster
	Topology ctp.Topology
	Rand     *rand.Rand
	// Fired appends an event (fault-fired, heal, prepare) to the run's timeline.
	Fired func(history.Event)
	// Progress returns how many input records are done so far, so a fault
	// can wait for load to be under way.
	Progress func(ctx context.Context) (done, total int64)
	// Workers is the number of worker slots (1..Workers), whose
	// transactional ids are Topology.TransactionalID(slot); 0 is taken as 1.
	// Case 4 and late-endtxn pick one worker's transactional id by it.
	Workers int
	// Cells are the other cells a shared injection serves (scope.go).
	Cells OtherCells
	// TookHold, when set, is told that the fault is about to act on the
	// load: a cell that held back the rest of its input until then writes
	// it, so the load cannot end before the fault met it however fast the
	// cell is (held_input.go in suites). It returns once the input is
	// written (a failed write is the drain's error), so the write meets a
	// healthy cluster: it is called before the fault acts, never during a
	// kill or a partition. Calls after the first return at once.
	TookHold func()

	// attrs are added to every event (a random schedule's part names).
	attrs  map[string]string
	report *reportBuilder
}

// tookHold tells the cell the fault is about to act (Env.TookHold).
func (e Env) tookHold() {
	if e.TookHold != nil {
		e.TookHold()
	}
}

// slots is how many worker slots the cell runs.
func (e Env) slots() int { return max(e.Workers, 1) }

// Report is what one injection did: each firing with where and when, and
// when each heal completed. Fired empty means the fault never acted.
type Report struct {
	Name   string
	Fired  []Firing
	Healed []time.Time
}

// Firing is one moment the fault acted.
type Firing struct {
	At    time.Time
	Point string
	Attrs map[string]string
}

// reportBuilder collects a Report while the fault runs (a random schedule's
// parts share their parent's).
type reportBuilder struct {
	mu sync.Mutex
	r  Report
}

// Inject runs m on env and returns what it did, also when it failed halfway
// (a partial report is still the truth about what acted).
func Inject(ctx context.Context, m Mechanism, env Env) (Report, error) {
	env.report = &reportBuilder{r: Report{Name: env.Name}}
	err := m.Act(ctx, env)
	env.report.mu.Lock()
	defer env.report.mu.Unlock()
	return env.report.r, err
}

// UnderLoad makes a mechanism wait until fraction of the input is done, so it
// hits a loop under load rather than an idle one. A cell that drains before
// that ends ctx: the fault then never fired, and the cell is UNKNOWN. The
// held input comes at the trigger, unless the mechanism takes hold itself
// (TakesHold: once its preparation is done, so a slow preparation on a busy
// machine does not outlast the load).
func (m Mechanism) UnderLoad(fraction float64) Mechanism {
	act := m.Act
	m.Act = func(ctx context.Context, env Env) error {
		if err := waitForLoad(ctx, env, fraction); err != nil {
			return nil // the cell ended first: nothing fired, nothing to heal
		}
		if !m.TakesHold {
			env.tookHold()
		}
		return act(ctx, env)
	}
	return m
}

// record sends e to the timeline with the env's extra attributes.
func (e Env) record(ev history.Event) {
	if len(e.attrs) > 0 {
		attrs := maps.Clone(ev.Attrs)
		if attrs == nil {
			attrs = map[string]string{}
		}
		maps.Copy(attrs, e.attrs)
		ev.Attrs = attrs
	}
	ev.Fault = e.Name
	if e.Fired != nil {
		e.Fired(ev)
	}
}
