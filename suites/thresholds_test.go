package suites

import (
	"testing"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
)

func TestThresholdsJudgeMatchingCells(t *testing.T) {
	ts, err := bench.ParseThresholds([]string{
		"txn_commit_duration{mode:transactional}: p(99)<100ms",
		"txn_commit_duration: p(50)<10ms",
	})
	if err != nil {
		t.Fatal(err)
	}
	cell := func(mode string, p50, p99 float64) reports.Cell {
		return reports.Cell{Scenario: "steady", Mode: mode, Backend: "embedded", Verdict: verdict.Pass,
			Counts:  verdict.Counts{Input: 10, Processed: 10},
			Latency: map[string]reports.Percentiles{"txn_commit_duration": {Count: 10, P50: p50, P99: p99}}}
	}
	cells := []reports.Cell{
		cell("transactional", 5, 250), // fails the transactional-only bound
		cell("explicit", 5, 250),      // the transactional bound does not apply
		{Scenario: "crash-after-acks", Mode: "explicit", Verdict: verdict.NA},
	}
	got := evaluateThresholds(ts, cells)
	if len(got) != 3 {
		t.Fatalf("%d results, want 3 (two on transactional, one on explicit, none on N/A): %+v", len(got), got)
	}
	res := judgeRun(reports.Result{Runs: cells, Thresholds: got})
	if res.Verdict != verdict.ThresholdFailed || res.ExitCode != verdict.ExitThresholdFailed {
		t.Errorf("verdict %s exit %d, want THRESHOLD-FAILED 3", res.Verdict, res.ExitCode)
	}

	// An ANOMALY stays ANOMALY: a threshold never hides a worse verdict.
	anomaly := append(cells, reports.Cell{Scenario: "steady", Mode: "implicit", Verdict: verdict.Anomaly})
	res = judgeRun(reports.Result{Runs: anomaly, Thresholds: got})
	if res.Verdict != verdict.Anomaly {
		t.Errorf("ANOMALY became %s", res.Verdict)
	}

	// All bounds met: the verdict stands.
	ok := evaluateThresholds(ts, []reports.Cell{cell("transactional", 5, 50)})
	res = judgeRun(reports.Result{Runs: []reports.Cell{cell("transactional", 5, 50)}, Thresholds: ok})
	if res.Verdict != verdict.Pass || !bench.AllPass(ok) {
		t.Errorf("passing thresholds changed the verdict to %s: %+v", res.Verdict, ok)
	}
}
