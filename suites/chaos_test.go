package suites

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

func TestMain(m *testing.M) {
	if code, ok := RunChildRole(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// expectation is what a cell must show beyond its verdict, from ORACLE.md.
type expectation struct {
	verdict       verdict.Verdict
	minDuplicated int // > 0 where the mode's window must show (crash-after-commit)
}

// TestChaosEmbedded runs the smoke matrix on the embedded backend, one subtest
// per cell named like CONTRACT.md's cell names:
// go test -run 'TestChaosEmbedded/crash-after-commit/explicit' ./suites/
func TestChaosEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real (embedded) cluster; skipped with -short")
	}
	cases := map[string]map[ctp.AckMode]expectation{
		"steady": {
			ctp.Explicit: {verdict: verdict.Pass},
			ctp.Implicit: {verdict: verdict.Pass},
		},
		"crash-after-commit": {
			// The window KIP-1289 closes: the crashed worker's batch is
			// committed but not acked, so it is processed again.
			ctp.Explicit: {verdict: verdict.Pass, minDuplicated: 1},
			ctp.Implicit: {verdict: verdict.Pass, minDuplicated: 1},
		},
	}
	res := runMatrix(t, Options{Backend: "embedded", Scenarios: []string{"steady", "crash-after-commit"},
		Modes: []ctp.AckMode{ctp.Explicit, ctp.Implicit}, Records: 600, Seed: 7})
	if res.Backend != "embedded" {
		t.Fatalf("backend = %q, want embedded", res.Backend)
	}
	checkCells(t, res, cases)
}

func runMatrix(t *testing.T, o Options) reports.Result {
	t.Helper()
	o.Out = filepath.Join(t.TempDir(), "run")
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("run directory: %s (seed %d)", res.Dir, res.Seed)
	for _, f := range []string{"result.json"} {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
			t.Errorf("report file missing: %v", err)
		}
	}
	return res
}

func checkCells(t *testing.T, res reports.Result, cases map[string]map[ctp.AckMode]expectation) {
	t.Helper()
	seen := 0
	for _, c := range res.Runs {
		want, ok := cases[c.Scenario][ctp.AckMode(c.Mode)]
		if !ok {
			continue
		}
		seen++
		t.Run(c.Scenario+"/"+c.Mode+"/"+c.Backend, func(t *testing.T) {
			t.Logf("%s: %s input=%d processed=%d duplicated=%d lost=%d unseen=%d commit p50=%.2fms p99=%.2fms %s",
				c.Name(), c.Verdict, c.Input, c.Processed, c.Duplicated, c.Lost, c.Unseen, c.CommitP50Ms, c.CommitP99Ms, c.Reason)
			if c.Verdict != want.verdict {
				t.Errorf("verdict = %s (%s), want %s", c.Verdict, c.Reason, want.verdict)
			}
			if c.Lost != 0 {
				t.Errorf("lost = %d, want 0", c.Lost)
			}
			if c.Processed != c.Input || c.Input == 0 {
				t.Errorf("processed %d of %d inputs", c.Processed, c.Input)
			}
			if want.minDuplicated > 0 && c.Duplicated < want.minDuplicated {
				t.Errorf("duplicated = %d, want at least %d: the fault's window did not show", c.Duplicated, want.minDuplicated)
			}
			if want.minDuplicated == 0 && c.Duplicated != 0 {
				t.Errorf("duplicated = %d, want 0", c.Duplicated)
			}
		})
	}
	if seen == 0 {
		t.Fatal("no cell of the expected matrix ran")
	}
}
