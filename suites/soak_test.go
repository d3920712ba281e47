package suites

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/cell"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestSoakOptions: records are rate x duration (also for a row with its own
// records), and a soak the in-memory checker should not hold is a usage
// error naming the large checker.
func TestSoakOptions(t *testing.T) {
	o, err := Options{Scenarios: []string{"steady"}, Records: 7, Soak: cell.Soak{Duration: time.Minute, Rate: 20}}.Validated()
	if err != nil || o.Records != 1200 || o.FaultPause != cell.DefaultFaultPause {
		t.Fatalf("records %d, pause %s, err %v: want 1200 and the default pause", o.Records, o.FaultPause, err)
	}
	lo, _ := (&runState{o: o}).cellSettings().WithLoad(scenarios.Scenario{Load: scenarios.Load{Records: 300}})
	if lo.Records != 1200 {
		t.Errorf("a row's own records replaced the soak's: %d", lo.Records)
	}
	_, err = Options{Scenarios: []string{"steady"}, Soak: cell.Soak{Duration: time.Hour, Rate: 1000}}.Validated()
	var ue *harness.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "3600000 records") || !strings.Contains(err.Error(), "make bench-checker") {
		t.Errorf("1000/s for an hour: err = %v, want a usage error naming the records and the large checker", err)
	}
	if _, err := (Options{Scenarios: []string{"steady"}, Soak: cell.Soak{Duration: time.Minute, Rate: -1}}).Validated(); !errors.As(err, &ue) {
		t.Errorf("a negative rate: err = %v, want a usage error", err)
	}
}

// TestSoakEmbedded: two soak cells on the embedded backend, 30 s at 50
// records/s: slow-network (the cluster fault the embedded backend runs,
// through its shared injection) and crash-after-commit (a worker fault).
// The inputs read back were written over the whole duration, the cluster
// fault fired more than once, the worker fault once, and both cells pass
// as without a soak. The cells run at once here to keep the test short.
func TestSoakEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real (embedded) cluster for a soak; skipped with -short")
	}
	const d, rate = 30 * time.Second, 50
	ctx := context.Background()
	dir := t.TempDir()
	o, err := Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 13, KeepTopics: true},
		Scenarios: []string{"slow-network", "crash-after-commit"}, Soak: cell.Soak{Duration: d, Rate: rate, FaultPause: 2 * time.Second}}.Validated()
	if err != nil {
		t.Fatal(err)
	}
	b := harness.ChooseBackend(ctx, o.Backend)
	so, _, err := harness.StartOptionsFor(o.Common, b, harness.StartOptions{Brokers: o.Brokers, RunID: "soak", Dir: dir, Lock: o.Lock, Log: o.Log})
	if err != nil {
		t.Fatal(err)
	}
	c, err := harness.StartBackend(ctx, b, so)
	if err != nil {
		t.Fatalf("start embedded: %v", err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	plans, err := planCells(ctx, o, c, "")
	if err != nil {
		t.Fatal(err)
	}
	r := &runState{o: o, deletions: new(sync.WaitGroup), groupDeletions: new(sync.WaitGroup), conditions: scenarios.Conditions{Lock: o.Lock}}
	env := cell.Env{Cluster: c, RunID: "soak", RunDir: dir, Display: newProgress(o, len(plans)), Log: o.Log, Deletions: r.deletions,
		GroupDeletions: r.groupDeletions}
	cells := make([]result.Cell, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		if placementOf(p) == withItsRow {
			p.Share = cell.NewShare(p.Scenario, c, o.Workers, p.Seed, 1)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cells[i] = cell.Run(ctx, env, r.cellSettings(), p)
		}()
	}
	wg.Wait()

	for i, cell := range cells {
		t.Logf("%s: %s %s input=%d processed=%d duplicated=%d fired=%d notes=%q", cell.Name(), cell.Verdict, cell.Reason,
			cell.Input, cell.Processed, cell.Duplicated, len(cell.Fault.Times), cell.Notes)
		if cell.Verdict != verdict.Pass || cell.Input != rate*int(d.Seconds()) || cell.Processed != cell.Input || cell.Lost != 0 {
			t.Errorf("%s: %s (%s), processed %d of %d, lost %d: want PASS, all %d processed", cell.Name(), cell.Verdict, cell.Reason,
				cell.Processed, cell.Input, cell.Lost, rate*int(d.Seconds()))
		}
		switch cell.Scenario {
		case "slow-network":
			if len(cell.Fault.Times) < 2 || len(cell.Fault.Healed) < 2 {
				t.Errorf("slow-network fired %d times, healed %d: want the fault repeated", len(cell.Fault.Times), len(cell.Fault.Healed))
			}
		case "crash-after-commit":
			if len(cell.Fault.Times) != 1 || cell.Duplicated < 1 {
				t.Errorf("crash-after-commit fired %d times, %d duplicated: want once, its batch processed again", len(cell.Fault.Times), cell.Duplicated)
			}
		}
		if !strings.Contains(strings.Join(cell.Notes, "\n"), "resident memory") {
			t.Errorf("%s: no memory note", cell.Name())
		}
		checkSeededOver(t, c, plans[i], d)
	}
}

// checkSeededOver reads a cell's input back and checks that it was written
// over the whole soak: the timestamps span the duration and every fifth of
// it holds records (a seeder that wrote everything up front fails).
func checkSeededOver(t *testing.T, c cluster.Cluster, p cell.Plan, d time.Duration) {
	t.Helper()
	topic := ctp.NewTopology(fmt.Sprintf("sc-%s-c%02d", "soak", p.Index), 1, 1, 1).InputTopic
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs, err := ctp.ReadTopic(ctx, c.Bootstrap(), topic, false, cluster.ClientOpts(c)...)
	if err != nil || len(rs) == 0 {
		t.Fatalf("read back %s: %d records, %v", topic, len(rs), err)
	}
	first, last := rs[0].Timestamp, rs[0].Timestamp
	for _, r := range rs {
		if r.Timestamp.Before(first) {
			first = r.Timestamp
		}
		if r.Timestamp.After(last) {
			last = r.Timestamp
		}
	}
	if span := last.Sub(first); span < d*9/10 || span > d+5*time.Second {
		t.Errorf("%s: inputs written over %s, want about %s", p.Label(), span, d)
	}
	fifths := make([]int, 5)
	for _, r := range rs {
		fifths[min(4, int(5*r.Timestamp.Sub(first)/d))]++
	}
	for i, n := range fifths {
		if n < len(rs)/10 {
			t.Errorf("%s: fifth %d of the soak has %d of %d records: %v", p.Label(), i+1, n, len(rs), fifths)
		}
	}
	t.Logf("%s: %d inputs written over %s, by fifths %v", p.Label(), len(rs), last.Sub(first), fifths)
}
