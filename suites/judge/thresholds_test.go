package judge

import (
	"github.com/sharechaos/sharechaos/result"
	"testing"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/verdict"
)

func TestThresholdsJudgeMatchingCells(t *testing.T) {
	ts, err := bench.ParseThresholds([]string{
		"txn_commit_duration{mode:transactional}: p(99)<100ms",
		"txn_commit_duration: p(50)<10ms",
	})
	if err != nil {
		t.Fatal(err)
	}
	cell := func(mode string, p50, p99 float64) result.Cell {
		return result.Cell{Scenario: "steady", Mode: mode, Backend: "embedded", Verdict: verdict.Pass,
			Counts:  verdict.Counts{Input: 10, Processed: 10},
			Latency: map[string]result.Percentiles{"txn_commit_duration": {Count: 10, P50: p50, P99: p99}}}
	}
	cells := []result.Cell{
		cell("transactional", 5, 250), // fails the transactional-only bound
		cell("explicit", 5, 250),      // the transactional bound does not apply
		{Scenario: "crash-after-acks", Mode: "explicit", Verdict: verdict.NA},
	}
	got := Thresholds(ts, cells)
	if len(got) != 3 {
		t.Fatalf("%d results, want 3 (two on transactional, one on explicit, none on N/A): %+v", len(got), got)
	}
	res := Run(result.Result{Runs: cells, Thresholds: got})
	if res.Verdict != verdict.ThresholdFailed || res.ExitCode != verdict.ExitThresholdFailed {
		t.Errorf("verdict %s exit %d, want THRESHOLD-FAILED 3", res.Verdict, res.ExitCode)
	}

	// An ANOMALY stays ANOMALY: a threshold never hides a worse verdict.
	anomaly := append(cells, result.Cell{Scenario: "steady", Mode: "implicit", Verdict: verdict.Anomaly})
	res = Run(result.Result{Runs: anomaly, Thresholds: got})
	if res.Verdict != verdict.Anomaly {
		t.Errorf("ANOMALY became %s", res.Verdict)
	}

	// All bounds met: the verdict stands.
	ok := Thresholds(ts, []result.Cell{cell("transactional", 5, 50)})
	res = Run(result.Result{Runs: []result.Cell{cell("transactional", 5, 50)}, Thresholds: ok})
	if res.Verdict != verdict.Pass || !bench.AllPass(ok) {
		t.Errorf("passing thresholds changed the verdict to %s: %+v", res.Verdict, ok)
	}
}
