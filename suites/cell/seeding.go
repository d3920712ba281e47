package cell

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// seeding is how a cell's input gets written, chosen once per cell
// (chooseSeeding): every record up front; a head up front and the rest once
// the cluster fault takes hold (seed_held.go); or a soak's seeder writing
// at its rate beside the load (seed_soak.go).
type seeding interface {
	// start writes what goes in before the workers start.
	start(ctx context.Context, r *run) error
	// pending is how many records are not written yet; the cell's progress
	// counts them in its total.
	pending() int64
	// takeHold writes what was held back for the cluster fault, before it
	// acts (faults.Env.TookHold); a no-op when nothing is held.
	takeHold()
	// awaitEnd returns, under load, once every record is written (the
	// drain starts then).
	awaitEnd(ctx context.Context, r *run, admin *kgo.Client, ws *workerset.Set) error
	// failure is a write that failed, once it ended.
	failure() error
	// stop ends any writing, so nothing writes into the cell's topics
	// after it returns.
	stop()
	// notes are what the cell's notes say of the seeding.
	notes(r *run) []string
}

// chooseSeeding picks the cell's seeding: a soak's seeder with --duration,
// held input for a cluster fault that waits for load or picks its own
// moment, else everything up front.
func chooseSeeding(ctx context.Context, r *run) seeding {
	if r.s.Soak.Duration > 0 {
		return &soakSeeding{}
	}
	if cf := r.plan.Scenario.Cluster; cf != nil {
		if h := holdInput(ctx, r, r.s.Records, cf.AfterLoad, cf.Mechanism.TakesHold); h != nil {
			return h
		}
	}
	return upFront{}
}

// upFront writes every record before the workers start.
type upFront struct{}

func (upFront) start(ctx context.Context, r *run) error { return seedHead(ctx, r, r.s.Records, 0) }

func (upFront) pending() int64 { return 0 }
func (upFront) takeHold()      {}
func (upFront) awaitEnd(context.Context, *run, *kgo.Client, *workerset.Set) error {
	return nil
}
func (upFront) failure() error      { return nil }
func (upFront) stop()               {}
func (upFront) notes(*run) []string { return nil }

// seedHead writes the first n input records and puts the seed event on the
// timeline (held: how many wait for the fault).
func seedHead(ctx context.Context, r *run, n int, held int64) error {
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := ctp.Seed(sctx, r.env.Cluster.Bootstrap(), r.topo.InputTopic, n, cluster.ClientOpts(r.env.Cluster)...); err != nil {
		return fmt.Errorf("seed cell: %w", err)
	}
	attrs := map[string]string{"records": fmt.Sprint(n), "topic": r.topo.InputTopic}
	if held > 0 {
		attrs["held_until_the_fault"] = fmt.Sprint(held)
	}
	_ = r.timeline.Record(history.Event{Type: history.OK, F: history.FSeed, Attrs: attrs})
	return nil
}
