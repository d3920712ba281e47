package cell

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/barrier"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/scenarios"
)

// Share is one injection of a shared cluster fault (faults.ScopeShared)
// serving the cells of one row, its modes, at once: the fault acts on
// brokers and links, so every cell on the cluster meets it anyway, and
// running the row's cells together under one injection costs one fault's
// time instead of one per mode. (An alone fault's cell is a row of one.)
//
// Each cell passes the same steps of a barrier: joined (topics created and
// seeded, group not yet configured), loaded (workers running), drained; a
// cell that stops early leaves, which counts as every step passed, so the
// others never wait for it. Once every cell joined, the fault's Align
// places the other cells' roles where the fault aims in the first cell's
// (the lowest plan index: its topology is Env.Topology); once every cell is
// loaded, the injection starts; once every cell drained, it is cancelled;
// each cell waits for its end (the heal) before its teardown.
type Share struct {
	fault shareFault
	// Gate, set before any cell joins, is waited for before any cell starts
	// its workers (the cells before this row are done reading back and
	// their deletions are done: suites' schedule); topic setup, seeding and
	// Align do not wait for it. Waiting before the load, not only before
	// the fault, keeps a fault's place in the load what it is when the row
	// runs by itself (a case-4 cell whose fault waited while its load ran
	// drained first).
	Gate func()

	steps   *barrier.Barrier
	mu      sync.Mutex
	members []*run // every cell that joined
	// coordinate starts the coordinator once, at the first join.
	coordinate sync.Once
	aligned    chan struct{}
	alignErr   error
	gateOpened chan struct{}
	// done is closed once the injection ended (healed) or had nothing to
	// serve; outcome is set before.
	done    chan struct{}
	outcome shareOutcome
}

// shareFault is the fault a Share injects and what it needs to aim it.
type shareFault struct {
	scenario scenarios.Scenario
	cluster  cluster.Cluster
	workers  int
	// seed seeds both Align's and Act's Env.Rand alike, so they aim at the
	// same target.
	seed uint64
}

// shareOutcome is what the injection did.
type shareOutcome struct {
	report faults.Report
	err    error
}

// The barrier's steps.
const (
	stepJoined = iota
	stepLoaded
	stepDrained
	shareSteps
)

// NewShare is one injection of s's fault for n cells of workers each.
func NewShare(s scenarios.Scenario, c cluster.Cluster, workers int, seed int64, n int) *Share {
	return &Share{fault: shareFault{scenario: s, cluster: c, workers: workers, seed: uint64(seed)},
		steps: barrier.New(n, shareSteps), aligned: make(chan struct{}), gateOpened: make(chan struct{}), done: make(chan struct{})}
}

// join registers r and waits until every cell joined, Align ran and the
// gate opened. The topology of r may have changed (its share group
// renamed) when it returns.
func (f *Share) join(ctx context.Context, r *run) error {
	f.mu.Lock()
	f.members = append(f.members, r)
	f.mu.Unlock()
	f.coordinate.Do(func() { go f.coordinator(context.WithoutCancel(ctx), ctx) })
	f.steps.Reach(r, stepJoined)
	select {
	case <-f.aligned:
	case <-ctx.Done():
		return ctx.Err()
	}
	if f.alignErr != nil {
		return f.alignErr
	}
	select {
	case <-f.gateOpened:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// coordinator runs the row's Align, gate and injection as the barrier's
// steps open. The injection heals under a context of its own (cancelled
// when every cell drained, or when runCtx ends), so a cancelled run still
// heals what it broke.
func (f *Share) coordinator(healCtx, runCtx context.Context) {
	go func() {
		if f.Gate != nil {
			f.Gate()
		}
		close(f.gateOpened)
	}()
	<-f.steps.Opened(stepJoined)
	f.align(runCtx)
	close(f.aligned)
	<-f.steps.Opened(stepLoaded)
	defer close(f.done)
	live := f.live()
	if len(live) == 0 {
		return // every cell stopped before its load: nothing to serve
	}
	ictx, cancel := context.WithCancel(healCtx)
	defer cancel()
	go func() {
		select {
		case <-f.steps.Opened(stepDrained):
		case <-runCtx.Done():
		}
		cancel()
	}()
	// An injection that never took hold lets the input come all the same.
	defer f.releaseHeld()
	until, pause := f.soakEnd()
	rep, err := repeatInjection(ictx, f.fault.scenario.Cluster.Triggered(), f.env(f.rng()), pause, until)
	f.outcome = shareOutcome{report: rep}
	if err != nil && ictx.Err() == nil {
		f.outcome.err = err
	}
}

// align runs the fault's Align once every cell joined; with one cell, or
// none, or no Align, there is nothing to place.
func (f *Share) align(ctx context.Context) {
	f.mu.Lock()
	n := len(f.members)
	f.mu.Unlock()
	if n <= 1 || f.fault.scenario.Cluster.Align == nil {
		return
	}
	if err := f.fault.scenario.Cluster.Align(ctx, f.env(f.rng())); err != nil {
		f.alignErr = fmt.Errorf("align the cells of %s for one shared fault: %w", f.fault.scenario.Name, err)
	}
}

// running says r's workers run.
func (f *Share) running(r *run) { f.steps.Reach(r, stepLoaded) }

// drainedAndWait says r drained and waits for the injection to heal. It
// returns the injection's report and error.
func (f *Share) drainedAndWait(r *run) (faults.Report, error) {
	f.steps.Reach(r, stepDrained)
	<-f.done // the injection heals under a context of its own
	return f.outcome.report, f.outcome.err
}

// exit says r stopped; every step it did not reach counts as passed. A nil
// Share (a cell that shares nothing) does nothing.
func (f *Share) exit(ctx context.Context, r *run) {
	if f == nil {
		return
	}
	f.steps.Leave(r)
	// A row whose cells all stop before joining (N/A on this backend) still
	// ends: the coordinator finds nobody to serve and closes done, which
	// the next row waits for (HealedAndDrained).
	f.coordinate.Do(func() { go f.coordinator(context.WithoutCancel(ctx), ctx) })
}

// HealedAndDrained is closed once the injection healed and every cell
// drained: from then on the row's cells only tear down and read back.
func (f *Share) HealedAndDrained() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		<-f.steps.Opened(stepDrained)
		<-f.done
		close(ch)
	}()
	return ch
}

// env is the fault's Env aimed at the first member, serving the others.
func (f *Share) env(rng *rand.Rand) faults.Env {
	ms := f.ordered()
	env := faults.Env{Name: f.fault.scenario.Name, Cluster: f.fault.cluster, Topology: ms[0].topo, Rand: rng,
		Workers: f.fault.workers, Fired: f.broadcast, Progress: f.slowest, TookHold: f.releaseHeld}
	for _, m := range ms[1:] {
		env.Cells = append(env.Cells, &m.topo)
	}
	return env
}

// ordered is the joined members by plan index.
func (f *Share) ordered() []*run {
	f.mu.Lock()
	ms := append([]*run(nil), f.members...)
	f.mu.Unlock()
	sort.Slice(ms, func(i, j int) bool { return ms[i].plan.Index < ms[j].plan.Index })
	return ms
}

// live is the joined members that did not stop.
func (f *Share) live() []*run {
	var out []*run
	for _, m := range f.ordered() {
		if !f.steps.Left(m) {
			out = append(out, m)
		}
	}
	return out
}

func (f *Share) rng() *rand.Rand { return rand.New(rand.NewPCG(f.fault.seed, 0x5ca1ab1e)) }

// broadcast puts a fault event on every member's timeline and display,
// with how far that cell was when the fault acted.
func (f *Share) broadcast(e history.Event) {
	ms := f.ordered()
	for _, m := range ms {
		ev := e
		ev.Attrs = maps.Clone(e.Attrs)
		if ev.Attrs == nil {
			ev.Attrs = map[string]string{}
		}
		done, total := m.progress.last()
		ev.Attrs["cell_progress"] = fmt.Sprintf("%d/%d", done, total)
		ev.Attrs["cells_served"] = fmt.Sprint(len(ms))
		m.faultEvent(ev)
	}
}

// slowest is the progress of the live cell least far along, so a fault that
// waits for load acts when every cell is under load.
func (f *Share) slowest(context.Context) (int64, int64) {
	bestDone, bestTotal := int64(0), int64(0)
	first := true
	for _, m := range f.live() {
		done, total := m.progress.last()
		if total == 0 {
			return 0, 0
		}
		if first || float64(done)/float64(total) < float64(bestDone)/float64(bestTotal) {
			bestDone, bestTotal, first = done, total, false
		}
	}
	return bestDone, bestTotal
}

// releaseHeld writes every member's held input (seed_held.go), and returns
// once all are written: the fault is about to act on all of them.
func (f *Share) releaseHeld() {
	var wg sync.WaitGroup
	for _, m := range f.ordered() {
		wg.Go(m.seeding.takeHold)
	}
	wg.Wait()
}

// soakEnd is when the last of the row's soak seeders is done, and the pause
// between injections (zero time: no soak, inject once).
func (f *Share) soakEnd() (until time.Time, pause time.Duration) {
	for _, m := range f.ordered() {
		if end := m.soakEnd(); end.After(until) {
			until, pause = end, m.s.Soak.FaultPause
		}
	}
	return until, pause
}
