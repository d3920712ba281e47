package cell

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/suites/workerset"
)

// injection is how a cell's fault is driven from the orchestrator beside
// the load, chosen once per cell (chooseInjection): nothing (no fault, or a
// worker fault that fires inside the worker alone); the orchestrator's half
// of a worker fault (the zombie's choreography); the cell's own cluster
// fault (one that touches only its own transactional ids); or its row's
// shared cluster fault (share.go).
type injection interface {
	// start starts it beside the load, once the workers run; ctx ends when
	// the cell drained.
	start(ctx context.Context, r *run, admin *kgo.Client, ws *workerset.Set)
	// finish waits for it to end, healed (a shared one: once every cell of
	// the row drained), and returns what went wrong.
	finish(ctx context.Context, r *run) error
	// report is what the cluster fault did (nil without one).
	report() *faults.Report
	// shared: the heal is the row's, which the cell waits for as its heal
	// phase.
	shared() bool
}

// chooseInjection picks the cell's injection from its row.
func chooseInjection(r *run) injection {
	switch p := r.plan; {
	case p.Share != nil:
		return &sharedInjection{share: p.Share}
	case p.Scenario.Cluster != nil:
		return &ownInjection{done: make(chan struct{})}
	case p.Scenario.Worker != nil && p.Scenario.Worker.Conduct != nil:
		return &conductInjection{done: make(chan struct{})}
	}
	return noInjection{}
}

// noInjection: nothing to drive.
type noInjection struct{}

func (noInjection) start(context.Context, *run, *kgo.Client, *workerset.Set) {}
func (noInjection) finish(context.Context, *run) error                       { return nil }
func (noInjection) report() *faults.Report                                   { return nil }
func (noInjection) shared() bool                                             { return false }

// conductInjection runs the orchestrator's half of a worker fault
// (faults.Conduct: the zombie's freeze, replacement and resume).
type conductInjection struct {
	done chan struct{}
	err  error
}

func (c *conductInjection) start(ctx context.Context, r *run, _ *kgo.Client, ws *workerset.Set) {
	go func() {
		defer close(c.done)
		if err := r.plan.Scenario.Worker.Conduct(ctx, ws.Armed(r.timeline), r.s.Lock); err != nil && ctx.Err() == nil {
			c.err = err
		}
	}()
}

func (c *conductInjection) finish(context.Context, *run) error { <-c.done; return c.err }
func (c *conductInjection) report() *faults.Report             { return nil }
func (c *conductInjection) shared() bool                       { return false }

// ownInjection runs the cell's own cluster fault (faults.ScopeCell: it acts
// only on this cell's transactional ids), once, or in a soak again after
// each heal until the soak's duration ended.
type ownInjection struct {
	done chan struct{}
	rep  *faults.Report
	err  error
}

func (o *ownInjection) start(ctx context.Context, r *run, admin *kgo.Client, _ *workerset.Set) {
	cf := r.plan.Scenario.Cluster
	env := faults.Env{Name: r.plan.Name(), Cluster: r.env.Cluster, Topology: r.topo, Rand: r.rng, Workers: r.s.Workers,
		Fired: r.faultEvent, TookHold: r.seeding.takeHold,
		// Its own reads, more often than the drain's (added when a fast
		// cell passed a trigger's fraction between two drain reads; the
		// held input now stops the load at the head, so the drain's reads
		// would do: noted for the next round).
		Progress: func(ctx context.Context) (int64, int64) { return r.shareProgress(ctx, admin) }}
	go func() {
		defer close(o.done)
		// A fault that ends without taking hold lets the input come all the same.
		defer r.seeding.takeHold()
		rep, err := repeatInjection(ctx, cf.Triggered(), env, r.s.Soak.FaultPause, r.soakEnd())
		o.rep = &rep
		if err != nil && ctx.Err() == nil {
			o.err = err
		}
	}()
}

func (o *ownInjection) finish(context.Context, *run) error { <-o.done; return o.err }
func (o *ownInjection) report() *faults.Report             { return o.rep }
func (o *ownInjection) shared() bool                       { return false }

// sharedInjection is the cell's part in its row's Share.
type sharedInjection struct {
	share *Share
	rep   *faults.Report
}

func (s *sharedInjection) start(_ context.Context, r *run, _ *kgo.Client, _ *workerset.Set) {
	s.share.running(r)
}

// finish: a cell that drained while the shared fault still acts waits for
// its heal: the heal is part of what every cell of the row meets.
func (s *sharedInjection) finish(_ context.Context, r *run) error {
	rep, err := s.share.drainedAndWait(r)
	s.rep = &rep
	return err
}

func (s *sharedInjection) report() *faults.Report { return s.rep }
func (s *sharedInjection) shared() bool           { return true }

// soakEnd is when the cell's soak seeder is done (zero without a soak): a
// cluster fault is injected again after each heal until then.
func (r *run) soakEnd() time.Time {
	if ss, ok := r.seeding.(*soakSeeding); ok && ss.seeder != nil {
		return ss.end
	}
	return time.Time{}
}
