package suites

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/cell"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

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
	var plans []cell.Plan
	for _, s := range []scenarios.Scenario{worker, cellScoped, shared, solo, worker} {
		for _, m := range []ctp.AckMode{ctp.Transactional, ctp.Explicit, ctp.Implicit} {
			plans = append(plans, cell.Plan{Index: len(plans), Scenario: s, Mode: m, Repeat: 1})
		}
	}
	shares := map[*cell.Share]int{}
	run := func(p cell.Plan) {
		mu.Lock()
		running[p.Scenario.Name]++
		for name, n := range running {
			if n > 0 && name != p.Scenario.Name && (placementOf(p) == besideOthers) != (name == "w" || name == "cell") {
				bad = append(bad, p.Scenario.Name+" beside "+name)
			}
		}
		if p.Share != nil {
			shares[p.Share]++
		} else if placementOf(p) != besideOthers {
			bad = append(bad, p.Scenario.Name+" cell without a share")
		}
		mu.Unlock()
		if p.Share != nil {
			walkShare(t, p.Share, p.Index, fmt.Sprintf("c%d", p.Index))
		}
		time.Sleep(20 * time.Millisecond) // teardown
		mu.Lock()
		running[p.Scenario.Name]--
		mu.Unlock()
	}
	share := func(row []cell.Plan) *cell.Share {
		return cell.NewShare(row[0].Scenario, nil, 1, row[0].Seed, len(row))
	}
	runPlans(context.Background(), 4, plans, share, func() {}, run)
	if len(bad) > 0 {
		t.Fatalf("placement broken: %v", bad)
	}
	// One share for the shared row, one for each alone cell.
	if len(shares) != 4 {
		t.Fatalf("%d shares, want 4 (the shared row, three alone cells)", len(shares))
	}
	for f, n := range shares {
		if want := map[string]int{"shared": 3, "solo": 1}[f.Row()]; n != want {
			t.Fatalf("the %s share served %d cells, want %d", f.Row(), n, want)
		}
	}
}

// walkShare walks a member through the share's steps as a cell does:
// join, workers running, drained and healed, exit.
func walkShare(t *testing.T, f *cell.Share, index int, prefix string) {
	t.Helper()
	if err := cell.WalkShare(context.Background(), f, index, prefix, t.TempDir()); err != nil {
		t.Error(err)
	}
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
	var plans []cell.Plan
	for _, s := range []scenarios.Scenario{a, b} {
		for _, m := range []ctp.AckMode{ctp.Transactional, ctp.Explicit, ctp.Implicit} {
			plans = append(plans, cell.Plan{Index: len(plans), Scenario: s, Mode: m, Repeat: 1})
		}
	}
	run := func(p cell.Plan) {
		mu.Lock()
		started[p.Scenario.Name] = append(started[p.Scenario.Name], time.Now())
		mu.Unlock()
		walkShare(t, p.Share, p.Index, p.Scenario.Name+string(p.Mode))
		time.Sleep(100 * time.Millisecond) // teardown and read-back
		mu.Lock()
		finished[p.Scenario.Name] = append(finished[p.Scenario.Name], time.Now())
		mu.Unlock()
	}
	share := func(row []cell.Plan) *cell.Share {
		return cell.NewShare(row[0].Scenario, nil, 1, row[0].Seed, len(row))
	}
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
// joining) finishes at once, and the row after it still runs (an N/A row
// whose share never ended held the next row forever: the embedded nightly
// hung after broker-kill); runPlans returns only after the row before the
// N/A one finished its teardown (its deletions must be counted before the
// run closes the cluster).
func TestRunPlansWaitsForEveryRow(t *testing.T) {
	act := faults.Mechanism{Scope: faults.ScopeShared, Act: func(context.Context, faults.Env) error { return nil }}
	a := scenarios.Scenario{Name: "row-a", Cluster: &scenarios.ClusterFault{Mechanism: act}}
	b := scenarios.Scenario{Name: "row-b", Cluster: &scenarios.ClusterFault{Mechanism: act}}
	c := scenarios.Scenario{Name: "row-c", Cluster: &scenarios.ClusterFault{Mechanism: act}}
	plans := []cell.Plan{{Index: 0, Scenario: a, Repeat: 1}, {Index: 1, Scenario: b, Repeat: 1}, {Index: 2, Scenario: c, Repeat: 1}}
	var finishedA, ranC atomic.Bool
	run := func(p cell.Plan) {
		if p.Scenario.Name == "row-b" {
			cell.LeaveShare(p.Share, p.Index) // N/A: never joins
			return
		}
		walkShare(t, p.Share, p.Index, fmt.Sprintf("c%d", p.Index))
		if p.Scenario.Name == "row-c" {
			ranC.Store(true)
			return
		}
		time.Sleep(100 * time.Millisecond) // teardown
		finishedA.Store(true)
	}
	share := func(row []cell.Plan) *cell.Share {
		return cell.NewShare(row[0].Scenario, nil, 1, row[0].Seed, len(row))
	}
	done := make(chan struct{})
	go func() {
		runPlans(context.Background(), 4, plans, share, func() {}, run)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("runPlans hung: the row after a row of N/A cells never ran")
	}
	if !finishedA.Load() || !ranC.Load() {
		t.Fatalf("row-a finished %v, row-c ran %v", finishedA.Load(), ranC.Load())
	}
}
