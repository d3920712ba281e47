package suites

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// shareMember is a cellRun with what a faultShare touches.
func shareMember(t *testing.T, index int, prefix string) *cellRun {
	t.Helper()
	rec, err := history.Create(filepath.Join(t.TempDir(), "orchestrator.jsonl"), "orchestrator")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	return &cellRun{plan: cellPlan{index: index}, topo: ctp.NewTopology(prefix, 2, 1, 1), timeline: rec,
		prog: newProgress(Options{Common: harness.Common{Progress: io.Discard}}, 3)}
}

// TestFaultShareOneInjectionForTheRow: the last cell to join runs Align
// (aimed at the lowest plan index, the others as Env.Cells, renamable), the
// fault acts once when every cell runs its workers, every cell sees its
// events, and no cell passes drainedAndWait before the fault returned.
func TestFaultShareOneInjectionForTheRow(t *testing.T) {
	var acts, aligns atomic.Int32
	var released atomic.Bool
	mech := faults.Mechanism{Scope: faults.ScopeShared,
		Align: func(ctx context.Context, env faults.Env) error {
			aligns.Add(1)
			if env.Topology.Prefix != "c0" || len(env.Cells) != 2 {
				t.Errorf("align aimed at %s with %d others, want c0 and 2", env.Topology.Prefix, len(env.Cells))
			}
			for _, c := range env.Cells {
				c.Group += "-renamed"
			}
			return nil
		},
		Act: func(ctx context.Context, env faults.Env) error {
			acts.Add(1)
			env.Fired(history.Event{Type: history.Info, F: history.FFaultFired, Attrs: map[string]string{"node": "1"}})
			time.Sleep(50 * time.Millisecond)
			released.Store(true)
			return nil
		}}
	s := scenarios.Scenario{Name: "shared-test", Cluster: &scenarios.ClusterFault{Mechanism: mech}}
	f := newFaultShare(s, nil, 1, 7, 3)
	members := []*cellRun{shareMember(t, 2, "c2"), shareMember(t, 0, "c0"), shareMember(t, 1, "c1")}
	var wg sync.WaitGroup
	for _, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			defer f.exit(ctx, m)
			if err := f.join(ctx, m); err != nil {
				t.Error(err)
				return
			}
			f.running(ctx, m)
			rep, err := f.drainedAndWait(ctx, m)
			if err != nil || !released.Load() {
				t.Errorf("%s: returned before the shared fault ended (err %v)", m.topo.Prefix, err)
			}
			if len(rep.Fired) != 0 { // Act above fires through env.Fired only
				t.Errorf("report: %+v", rep)
			}
		}()
	}
	wg.Wait()
	if acts.Load() != 1 || aligns.Load() != 1 {
		t.Fatalf("acts %d, aligns %d: want one of each for the row", acts.Load(), aligns.Load())
	}
	for _, m := range members {
		want := m.topo.Prefix + "-group"
		if m.topo.Prefix != "c0" {
			want += "-renamed"
		}
		if m.topo.Group != want {
			t.Errorf("%s: group %s, want %s", m.topo.Prefix, m.topo.Group, want)
		}
		m.timeline.Close()
	}
}

// TestFaultShareCellThatStopsEarly: a cell that exits before joining (an
// N/A mode, a failed setup) never holds up the others, and the fault still
// acts for the cells left.
func TestFaultShareCellThatStopsEarly(t *testing.T) {
	var acts atomic.Int32
	mech := faults.Mechanism{Scope: faults.ScopeShared, Act: func(ctx context.Context, env faults.Env) error {
		acts.Add(1)
		return nil
	}}
	s := scenarios.Scenario{Name: "shared-test", Cluster: &scenarios.ClusterFault{Mechanism: mech}}
	f := newFaultShare(s, nil, 1, 7, 2)
	early, late := shareMember(t, 0, "c0"), shareMember(t, 1, "c1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f.exit(ctx, early)
	if err := f.join(ctx, late); err != nil {
		t.Fatal(err)
	}
	f.running(ctx, late)
	if _, err := f.drainedAndWait(ctx, late); err != nil {
		t.Fatal(err)
	}
	f.exit(ctx, late)
	if acts.Load() != 1 {
		t.Fatalf("acts %d, want 1", acts.Load())
	}
}

// TestRunPlansPlacement: worker faults and cell-scoped faults share the
// pool and run before anything else; a shared fault's row runs together
// under one share; an alone cell is a row of one; and while any cluster
// fault acts, no cell of another row runs.
func TestRunPlansPlacement(t *testing.T) {
	var mu sync.Mutex
	running := map[string]int{} // cells running, by scenario
	var bad []string
	acting := func(name string) func(context.Context, faults.Env) error {
		return func(context.Context, faults.Env) error {
			mu.Lock()
			for other, n := range running {
				if n > 0 && other != name {
					bad = append(bad, name+"'s fault acted while "+other+" ran")
				}
			}
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			return nil
		}
	}
	worker := scenarios.Scenario{Name: "w", Worker: &scenarios.WorkerFault{}}
	solo := scenarios.Scenario{Name: "solo", Cluster: &scenarios.ClusterFault{Mechanism: faults.Mechanism{Act: acting("solo")}}}
	shared := scenarios.Scenario{Name: "shared", Cluster: &scenarios.ClusterFault{Mechanism: faults.Mechanism{Scope: faults.ScopeShared, Act: acting("shared")}}}
	cellScoped := scenarios.Scenario{Name: "cell", Cluster: &scenarios.ClusterFault{Mechanism: faults.Mechanism{Scope: faults.ScopeCell}}}
	var plans []cellPlan
	for _, s := range []scenarios.Scenario{worker, cellScoped, shared, solo, worker} {
		for _, m := range []ctp.AckMode{ctp.Transactional, ctp.Explicit, ctp.Implicit} {
			plans = append(plans, cellPlan{index: len(plans), scenario: s, mode: m, repeat: 1})
		}
	}
	shares := map[*faultShare]int{}
	run := func(p cellPlan) {
		mu.Lock()
		running[p.scenario.Name]++
		for name, n := range running {
			if n > 0 && name != p.scenario.Name && (placementOf(p) == besideOthers) != (name == "w" || name == "cell") {
				bad = append(bad, p.scenario.Name+" beside "+name)
			}
		}
		if p.share != nil {
			shares[p.share]++
		} else if placementOf(p) != besideOthers {
			bad = append(bad, p.scenario.Name+" cell without a share")
		}
		mu.Unlock()
		if p.share != nil {
			walkShare(t, p.share, shareMember(t, p.index, fmt.Sprintf("c%d", p.index)))
		}
		time.Sleep(20 * time.Millisecond) // teardown
		mu.Lock()
		running[p.scenario.Name]--
		mu.Unlock()
	}
	share := func(row []cellPlan) *faultShare { return newFaultShare(row[0].scenario, nil, 1, row[0].seed, len(row)) }
	runPlans(context.Background(), 4, plans, share, func() {}, run)
	if len(bad) > 0 {
		t.Fatalf("placement broken: %v", bad)
	}
	// One share for the shared row, one for each alone cell.
	if len(shares) != 4 {
		t.Fatalf("%d shares, want 4 (the shared row, three alone cells)", len(shares))
	}
	for f, n := range shares {
		if want := map[string]int{"shared": 3, "solo": 1}[f.scenario.Name]; n != want {
			t.Fatalf("the %s share served %d cells, want %d", f.scenario.Name, n, want)
		}
	}
}

// walkShare walks m through the share protocol as runCell does: join,
// workers running, drained and healed, exit.
func walkShare(t *testing.T, f *faultShare, m *cellRun) {
	t.Helper()
	ctx := context.Background()
	if err := f.join(ctx, m); err != nil {
		t.Error(err)
	}
	f.running(ctx, m)
	if _, err := f.drainedAndWait(ctx, m); err != nil {
		t.Error(err)
	}
	f.exit(ctx, m)
}

func byName(name string, ss ...scenarios.Scenario) scenarios.Scenario {
	for _, s := range ss {
		if s.Name == name {
			return s
		}
	}
	return scenarios.Scenario{}
}

// TestRunPlansRowsOverlapOutsideTheirFaults: the next row's cells start
// once the row before healed and drained, so their setup overlaps its
// teardown; the next row's fault acts only after every cell of the row
// before finished and settle returned.
func TestRunPlansRowsOverlapOutsideTheirFaults(t *testing.T) {
	var mu sync.Mutex
	acted := map[string]time.Time{}
	finished := map[string][]time.Time{}
	started := map[string][]time.Time{}
	var settled []time.Time
	row := func(name string) scenarios.Scenario {
		return scenarios.Scenario{Name: name, Cluster: &scenarios.ClusterFault{Mechanism: faults.Mechanism{Scope: faults.ScopeShared,
			Act: func(ctx context.Context, env faults.Env) error {
				mu.Lock()
				acted[name] = time.Now()
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
				return nil
			}}}}
	}
	a, b := row("row-a"), row("row-b")
	var plans []cellPlan
	for _, s := range []scenarios.Scenario{a, b} {
		for _, m := range []ctp.AckMode{ctp.Transactional, ctp.Explicit, ctp.Implicit} {
			plans = append(plans, cellPlan{index: len(plans), scenario: s, mode: m, repeat: 1})
		}
	}
	run := func(p cellPlan) {
		m := shareMember(t, p.index, p.scenario.Name+string(p.mode))
		mu.Lock()
		started[p.scenario.Name] = append(started[p.scenario.Name], time.Now())
		mu.Unlock()
		walkShare(t, p.share, m)
		time.Sleep(100 * time.Millisecond) // teardown and read-back
		mu.Lock()
		finished[p.scenario.Name] = append(finished[p.scenario.Name], time.Now())
		mu.Unlock()
	}
	share := func(row []cellPlan) *faultShare { return newFaultShare(row[0].scenario, nil, 1, row[0].seed, len(row)) }
	settle := func() {
		mu.Lock()
		settled = append(settled, time.Now())
		mu.Unlock()
	}
	runPlans(context.Background(), 4, plans, share, settle, run)

	lastA := slices.MaxFunc(finished["row-a"], time.Time.Compare)
	firstB := slices.MinFunc(started["row-b"], time.Time.Compare)
	if len(finished["row-a"]) != 3 || len(finished["row-b"]) != 3 {
		t.Fatalf("finished: %v", finished)
	}
	if !acted["row-b"].After(lastA) {
		t.Errorf("row-b's fault acted at %v, before row-a's last cell finished at %v", acted["row-b"], lastA)
	}
	if !firstB.Before(lastA) {
		t.Errorf("row-b's cells started at %v, only after row-a's finished at %v: no overlap of setup and teardown", firstB, lastA)
	}
	if !firstB.After(acted["row-a"]) {
		t.Errorf("row-b's cells started at %v, before row-a's fault acted at %v", firstB, acted["row-a"])
	}
	if len(settled) != 2 || !acted["row-b"].After(settled[1]) {
		t.Errorf("settle ran at %v; row-b acted at %v: want settle before each row's fault", settled, acted["row-b"])
	}
}

// TestRunPlansWaitsForEveryRow: a row of N/A cells (they exit before
// joining) finishes at once; runPlans still returns only after the row
// before it finished its teardown (its deletions must be counted before the
// run closes the cluster).
func TestRunPlansWaitsForEveryRow(t *testing.T) {
	act := faults.Mechanism{Scope: faults.ScopeShared, Act: func(context.Context, faults.Env) error { return nil }}
	a := scenarios.Scenario{Name: "row-a", Cluster: &scenarios.ClusterFault{Mechanism: act}}
	b := scenarios.Scenario{Name: "row-b", Cluster: &scenarios.ClusterFault{Mechanism: act}}
	plans := []cellPlan{{index: 0, scenario: a, repeat: 1}, {index: 1, scenario: b, repeat: 1}}
	var finishedA atomic.Bool
	run := func(p cellPlan) {
		m := shareMember(t, p.index, fmt.Sprintf("c%d", p.index))
		if p.scenario.Name == "row-b" {
			p.share.exit(context.Background(), m) // N/A: never joins
			return
		}
		walkShare(t, p.share, m)
		time.Sleep(100 * time.Millisecond) // teardown
		finishedA.Store(true)
	}
	share := func(row []cellPlan) *faultShare { return newFaultShare(row[0].scenario, nil, 1, row[0].seed, len(row)) }
	runPlans(context.Background(), 4, plans, share, func() {}, run)
	if !finishedA.Load() {
		t.Fatal("runPlans returned while row-a's cell was still tearing down")
	}
}
