package suites

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/scenarios"
)

// faultShare is one injection of a shared cluster fault (faults.ScopeShared)
// serving the cells of one row, its modes, at once: the fault acts on
// brokers and links, so every cell on the cluster meets it anyway, and
// running the row's cells together under one injection costs one fault's
// time instead of one per mode.
//
// Each cell walks the same steps and tells the share: join (topics created
// and seeded, group not yet configured), loaded (workers running), drained;
// exit whenever it stops, at whatever step. The last to join runs the
// fault's Align, which places the other cells' roles where the fault aims
// in the first cell's (the lowest plan index: its topology is Env.Topology).
// The injection starts once every cell runs its workers, is cancelled when
// every cell has drained, and each cell waits for it (the heal) before its
// teardown. A cell that stops early counts as having passed every step, so
// the others never wait for it.
type faultShare struct {
	scenario scenarios.Scenario
	cluster  cluster.Cluster
	workers  int
	// seed seeds both Align's and Act's Env.Rand alike, so they aim at the
	// same target.
	seed uint64
	n    int

	mu       sync.Mutex
	members  []*cellRun // every cell that joined
	nJoined  int        // cells that joined or exited
	nLoaded  int        // cells whose workers ran, or exited
	nDrained int        // cells that drained, or exited
	exited   map[*cellRun]bool
	step     map[*cellRun]shareStep
	aligning bool
	injected bool
	cancel   context.CancelFunc

	aligned  chan struct{}
	alignErr error
	// gate, when set, is waited for before any cell starts its workers
	// (the cells before this row are done reading back, their deletions
	// are done: schedule.go); topic setup, seeding and Align do not wait
	// for it. Waiting before the load, not only before the fault, keeps a
	// fault's place in the load what it is when the row runs by itself (a
	// case-4 cell whose fault waited while its load ran drained first).
	gate     func()
	gateOnce sync.Once
	opened   chan struct{}
	// drained is closed once every cell drained (or exited).
	drained       chan struct{}
	drainedClosed bool
	done          chan struct{}
	report        faults.Report
	err           error
}

// shareStep is how far one cell got.
type shareStep int

const (
	stepNone shareStep = iota
	stepJoined
	stepLoaded
	stepDrained
)

func newFaultShare(s scenarios.Scenario, c cluster.Cluster, workers int, seed int64, n int) *faultShare {
	return &faultShare{scenario: s, cluster: c, workers: workers, seed: uint64(seed), n: n,
		exited: map[*cellRun]bool{}, step: map[*cellRun]shareStep{},
		aligned: make(chan struct{}), opened: make(chan struct{}), drained: make(chan struct{}), done: make(chan struct{})}
}

// join registers r and waits until every cell joined, Align ran and the
// gate opened. The topology of r may have changed (its share group
// renamed) when it returns.
func (f *faultShare) join(ctx context.Context, r *cellRun) error {
	f.mu.Lock()
	f.members = append(f.members, r)
	f.step[r] = stepJoined
	f.nJoined++
	f.afterStep(ctx)
	f.mu.Unlock()
	select {
	case <-f.aligned:
	case <-ctx.Done():
		return ctx.Err()
	}
	if f.alignErr != nil {
		return f.alignErr
	}
	select {
	case <-f.gateOpened():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gateOpened is closed once the gate returned (at once without a gate).
func (f *faultShare) gateOpened() <-chan struct{} {
	f.gateOnce.Do(func() {
		go func() {
			if f.gate != nil {
				f.gate()
			}
			close(f.opened)
		}()
	})
	return f.opened
}

// running says r's workers run.
func (f *faultShare) running(ctx context.Context, r *cellRun) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.step[r] < stepLoaded {
		f.step[r] = stepLoaded
		f.nLoaded++
		f.afterStep(ctx)
	}
}

// drainedAndWait says r drained and waits for the injection to heal. It
// returns the injection's report and error.
func (f *faultShare) drainedAndWait(ctx context.Context, r *cellRun) (faults.Report, error) {
	f.mu.Lock()
	if f.step[r] < stepDrained {
		f.step[r] = stepDrained
		f.nDrained++
		f.afterStep(ctx)
	}
	f.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		<-f.done // the injection heals under a context of its own
	}
	return f.report, f.err
}

// exit says r stopped; every step it did not reach counts as passed.
func (f *faultShare) exit(ctx context.Context, r *cellRun) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.exited[r] {
		return
	}
	f.exited[r] = true
	switch f.step[r] {
	case stepNone:
		f.nJoined++
		f.nLoaded++
		f.nDrained++
	case stepJoined:
		f.nLoaded++
		f.nDrained++
	case stepLoaded:
		f.nDrained++
	}
	f.step[r] = stepDrained
	f.afterStep(ctx)
}

// afterStep starts whatever the counts now allow; f.mu is held.
func (f *faultShare) afterStep(ctx context.Context) {
	if f.nJoined == f.n && !f.aligning {
		f.startAlign(ctx)
	}
	if f.nJoined == f.n && f.nLoaded == f.n && !f.injected {
		f.injected = true
		f.startInjection(ctx)
	}
	if f.nDrained == f.n && !f.drainedClosed {
		f.drainedClosed = true
		close(f.drained)
	}
	if f.nDrained == f.n && f.cancel != nil {
		f.cancel()
	}
}

// healedAndDrained is closed once the injection healed and every cell
// drained: from then on the row's cells only tear down and read back.
func (f *faultShare) healedAndDrained() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		<-f.drained
		<-f.done
		close(ch)
	}()
	return ch
}

// env is the fault's Env aimed at the first member, serving the others.
func (f *faultShare) env(rng *rand.Rand) faults.Env {
	ms := f.ordered()
	env := faults.Env{Name: f.scenario.Name, Cluster: f.cluster, Topology: ms[0].topo, Rand: rng, Workers: f.workers,
		Fired: f.broadcast, Progress: f.slowest, TookHold: f.releaseHeld}
	for _, m := range ms[1:] {
		env.Cells = append(env.Cells, &m.topo)
	}
	return env
}

// ordered is the joined members by plan index.
func (f *faultShare) ordered() []*cellRun {
	ms := append([]*cellRun(nil), f.members...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].plan.index < ms[j].plan.index })
	return ms
}

func (f *faultShare) rng() *rand.Rand { return rand.New(rand.NewPCG(f.seed, 0x5ca1ab1e)) }

// startAlign runs Align once every cell joined (f.mu is held).
func (f *faultShare) startAlign(ctx context.Context) {
	f.aligning = true
	if len(f.members) == 0 || f.scenario.Cluster.Align == nil || len(f.members) == 1 {
		close(f.aligned)
		return
	}
	env := f.env(f.rng())
	go func() {
		err := f.scenario.Cluster.Align(ctx, env)
		if err != nil {
			f.alignErr = fmt.Errorf("align the cells of %s for one shared fault: %w", f.scenario.Name, err)
		}
		close(f.aligned)
	}()
}

// startInjection runs the fault once every cell's workers run (f.mu is
// held). With no member left, there is nothing to inject.
func (f *faultShare) startInjection(ctx context.Context) {
	live := 0
	for _, m := range f.members {
		if !f.exited[m] {
			live++
		}
	}
	if live == 0 {
		close(f.done)
		return
	}
	ictx, cancel := context.WithCancel(ctx)
	f.cancel = cancel
	env := f.env(f.rng())
	go func() {
		defer close(f.done)
		defer cancel()
		defer f.releaseHeld() // an injection that never took hold
		rep, err := f.injections(ictx, f.scenario.Cluster.Triggered(), env)
		f.report = rep
		if err != nil && ictx.Err() == nil {
			f.err = err
		}
	}()
	if f.nDrained == f.n {
		cancel()
	}
}

// broadcast puts a fault event on every member's timeline and progress
// line, with how far that cell was when the fault acted.
func (f *faultShare) broadcast(e history.Event) {
	f.mu.Lock()
	ms := append([]*cellRun(nil), f.members...)
	f.mu.Unlock()
	for _, m := range ms {
		ev := e
		ev.Attrs = maps.Clone(e.Attrs)
		if ev.Attrs == nil {
			ev.Attrs = map[string]string{}
		}
		done, total := m.lastProgress()
		ev.Attrs["cell_progress"] = fmt.Sprintf("%d/%d", done, total)
		ev.Attrs["cells_served"] = fmt.Sprint(len(ms))
		m.faultEvent(ev)
	}
}

// slowest is the progress of the live cell least far along, so a fault that
// waits for load acts when every cell is under load.
func (f *faultShare) slowest(ctx context.Context) (int64, int64) {
	f.mu.Lock()
	var live []*cellRun
	for _, m := range f.members {
		if !f.exited[m] {
			live = append(live, m)
		}
	}
	f.mu.Unlock()
	bestDone, bestTotal := int64(0), int64(0)
	first := true
	for _, m := range live {
		done, total := m.lastProgress()
		if total == 0 {
			return 0, 0
		}
		if first || float64(done)/float64(total) < float64(bestDone)/float64(bestTotal) {
			bestDone, bestTotal, first = done, total, false
		}
	}
	return bestDone, bestTotal
}

// releaseHeld writes every member's held input (held_input.go), and
// returns once all are written: the fault is about to act on all of them.
func (f *faultShare) releaseHeld() {
	f.mu.Lock()
	ms := append([]*cellRun(nil), f.members...)
	f.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(m.held.release)
	}
	wg.Wait()
}
