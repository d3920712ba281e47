package reports_test

import (
	"bytes"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
)

// sampleBench runs the real pipeline on synthetic recordings: per repeat a
// recorder, summarized into a BenchRun; CompareModes; thresholds; figures.
func sampleBench(t *testing.T) (result.Bench, result.BenchFigures) {
	t.Helper()
	modes := []struct {
		mode, realization string
		base              time.Duration
	}{{"transactional", "ledger", 20 * time.Millisecond}, {"explicit", "", 10 * time.Millisecond}, {"implicit", "", 9 * time.Millisecond}}
	b := result.Bench{
		Verdict: verdict.Pass, Seed: 9, Started: started, DurationS: 120, Backend: "docker", BackendWhy: "engine answered",
		Rates: []float64{50}, RepeatDurationS: 2, Repeats: 5, Modes: []string{"transactional", "explicit", "implicit"}, Batches: []int{1, 10},
		Baseline: "explicit", Alpha: 0.05, HarnessOverhead: 0.97,
	}
	ths, err := bench.ParseThresholds([]string{"txn_total_duration: p(99)<1s", "txn_total_duration{mode:transactional}: p(50)<5ms"})
	if err != nil {
		t.Fatal(err)
	}
	var repeats []bench.Repeat
	merged := map[string]*bench.Snapshot{} // by "label batch=N"
	var scopes []string
	for _, batch := range b.Batches {
		for rep := 0; rep < b.Repeats; rep++ {
			for _, m := range modes {
				rec := bench.NewRecorder(0)
				start := started.Add(time.Duration(rep) * time.Minute)
				for i := 0; i < 100; i++ {
					at := start.Add(time.Duration(i) * 20 * time.Millisecond)
					d := m.base + time.Duration(batch)*time.Millisecond/10 + time.Duration(i%10+rep)*100*time.Microsecond
					rec.Record(bench.TxnTotalDuration, at, d)
					rec.Record(bench.TxnCommitDuration, at, d/2)
					rec.Add(bench.Transactions, at, 1)
					rec.Add(bench.Records, at, int64(batch))
				}
				rec.Add(bench.DroppedIterations, start, 0)
				snap := rec.Snapshot()
				run := bench.FillRun(result.BenchRun{Mode: m.mode, Realization: m.realization, Batch: batch, Repeat: rep, Started: start, DurationS: 2}, snap, nil)
				b.Runs = append(b.Runs, run)
				repeats = append(repeats, bench.Repeat{Run: run, Snapshot: snap})
				scope := run.Label() + " batch=" + strconv.Itoa(batch)
				if merged[scope] == nil {
					merged[scope] = bench.NewSnapshot(0)
					scopes = append(scopes, scope)
				}
				if err := merged[scope].Merge(snap); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, scope := range scopes {
		b.Thresholds = append(b.Thresholds, ths.Evaluate(merged[scope], map[string]string{"mode": strings.Split(strings.Fields(scope)[0], "/")[0]}, scope)...)
	}
	figs := bench.ModeFigures(repeats, bench.TxnTotalDuration)
	b.Comparisons = bench.CompareModes(b.Runs, bench.CompareOptions{})
	if !bench.AllPass(b.Thresholds) {
		b.Verdict = verdict.ThresholdFailed
		b.ExitCode = verdict.ExitThresholdFailed
	}
	return b, figs
}

func TestBenchReports(t *testing.T) {
	b, figs := sampleBench(t)
	dir := t.TempDir()
	if err := reports.WriteBench(dir, b, figs); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"bench.json", "report.html", "summary.md"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	back, err := result.ReadBenchJSON(filepath.Join(dir, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, b) {
		t.Fatal("bench.json does not round-trip")
	}

	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	t.Log("\n" + string(md))
	for _, want := range []string{
		"# sharechaos bench: THRESHOLD-FAILED",
		"| load | 50 transactions/s (open loop), 2s per repeat |",
		"| harness overhead | 0.97",
		"so n = 5 per mode",
		"## txn_total_duration, batch 1",
		"## txn_total_duration, batch 10",
		"| mode | repeats | p50 ms | p99 ms | txn/s | p50 vs explicit | p50 p-value | p99 vs explicit | p99 p-value | verdict |",
		"| explicit (baseline) | 5 |",
		"| transactional/ledger | 5 |",
		"p50: transactional/ledger slower than explicit: 1.9",
		"| implicit | 5 |",
		"p50: implicit faster than explicit",
		"`txn_total_duration{mode:transactional}: p(50)<5ms` | transactional/ledger batch=1 |",
		"**FAILED**: observed",
		"## Repeats",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	// The baseline row comes first in every table.
	for _, part := range strings.Split(string(md), "## txn_total_duration, batch ")[1:] {
		lines := strings.Split(part, "\n")
		if !strings.HasPrefix(lines[4], "| explicit (baseline)") {
			t.Errorf("first row %q, want the baseline", lines[4])
		}
	}

	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	checkSelfContained(t, string(page))
	for _, want := range []string{"<h3>txn_total_duration, batch 10</h3>", "Plots, batch 1", "percentile spectrum by mode", "p99 over time", "transactional/ledger", "throughput over time"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Per batch: the spectrum, latency over time, throughput.
	if n := strings.Count(string(page), "<svg"); n != 2*3 {
		t.Errorf("%d SVGs, want %d", n, 2*3)
	}
}

func TestBenchSummaryTooFewRepeats(t *testing.T) {
	runs := []result.BenchRun{}
	for rep := 0; rep < 3; rep++ {
		runs = append(runs,
			result.BenchRun{Mode: "explicit", Batch: 1, Repeat: rep, Latency: map[string]result.Percentiles{"txn_total_duration": {Count: 1, P50: 1, P99: 2}}},
			result.BenchRun{Mode: "transactional", Batch: 1, Repeat: rep, Latency: map[string]result.Percentiles{"txn_total_duration": {Count: 1, P50: 5, P99: 9}}})
	}
	b := result.Bench{Verdict: verdict.Pass, Repeats: 3, Baseline: "explicit", Alpha: 0.05, Runs: runs,
		Comparisons: bench.CompareModes(runs, bench.CompareOptions{})}
	var buf bytes.Buffer
	if err := reports.WriteBenchSummary(&buf, b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "too few repeats to tell (n=3+3") {
		t.Fatalf("3 repeats must be called too few:\n%s", buf.String())
	}
}

// TestBenchCurvesReported: a rate sweep's floor and curves are in
// summary.md and report.html, and the curve figure is drawn.
func TestBenchCurvesReported(t *testing.T) {
	b, figs := sampleBench(t)
	b.Rates, b.KeptTolerance = []float64{5, 50, 0}, 0.1
	b.Floors = []result.BenchFloor{
		{LinkLatency: "0s", Produce: result.Percentiles{Count: 200, P50: 1.5, P99: 4}, Txn: result.Percentiles{Count: 200, P50: 6, P99: 12}, TxnCommit: result.Percentiles{Count: 200, P50: 2.5, P99: 5}},
		{LinkLatency: "20ms", Error: "the cluster did not answer"},
	}
	b.Curves = []result.BenchCurve{{Mode: "explicit", Batch: 10, SaturationTps: 5, MaxTps: 31, Words: "keeps 5 txn/s; at 50 txn/s commits 30.0 (60%); closed loop 31.0 txn/s",
		Points: []result.CurvePoint{
			{Rate: "5", TargetTps: 5, Repeats: 5, AchievedTps: 5, TotalP50Ms: 9, TotalP99Ms: 20, CommitP50Ms: 3, CommitP99Ms: 6, Kept: true, TotalXFloor: 1.5, CommitXFloor: 1.2},
			{Rate: "50", TargetTps: 50, Repeats: 5, AchievedTps: 30, TotalP50Ms: 900, TotalP99Ms: 2000, CommitP50Ms: 30, CommitP99Ms: 60, Dropped: 400},
			{Rate: "closed", Repeats: 5, AchievedTps: 31, TotalP50Ms: 60, TotalP99Ms: 90, CommitP50Ms: 25, CommitP99Ms: 50}}}}
	figs[10] = append(figs[10], result.Figure{Title: "txn_total_duration against throughput, batch 10", YLabel: "ms",
		Curves: []result.Curve{{Label: "explicit p50", Key: "explicit", Points: []result.CurveXY{{Tps: 5, ValueMs: 9}, {Tps: 30, ValueMs: 900}, {Tps: 31, ValueMs: 60}}}},
		Levels: []result.Level{{Label: "floor: bare transaction p50", ValueMs: 6}}})
	for rep, total := range []float64{30, 34} {
		b.Runs = append(b.Runs, result.BenchRun{Mode: "transactional", Realization: "native", Batch: 10, Repeat: rep, Latency: map[string]result.Percentiles{
			bench.TxnTotalDuration: {Count: 100, P50: total}, bench.TxnCommitDuration: {Count: 100, P50: 8}, bench.TxnAcksDuration: {Count: 100, P50: 12},
			bench.TxnAcksPrepareDuration: {Count: 100, P50: 1}, bench.AddShareAcksToTxnDuration: {Count: 100, P50: 4}, bench.TxnShareAcknowledgeDuration: {Count: 100, P50: 6}}})
	}
	// A failed repeat counts for nothing.
	b.Runs = append(b.Runs, result.BenchRun{Mode: "transactional", Realization: "native", Batch: 10, Error: "boom",
		Latency: map[string]result.Percentiles{bench.AddShareAcksToTxnDuration: {Count: 1, P50: 900}}})
	dir := t.TempDir()
	if err := reports.WriteBench(dir, b, figs); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{
		"## KIP-1289's cost, request by request",
		"| transactional/native | 10 | 32 | ",
		" | 12 | 1 | 4 | 6 | 8 | ",
		"| load | a sweep: 5 transactions/s (open loop), 50 transactions/s (open loop), closed loop (as fast as possible), 2s per repeat |",
		"## Floor: what the cluster costs",
		"| 0s | 1.5 / 4 | 6 / 12 | 2.5 / 5 | 200 + 200 |",
		"| 20ms | not measured: the cluster did not answer |",
		"## Load curves", "committed at least 90% of it",
		"### batch 10",
		"| explicit | 5 | 5 | yes | 9 / 20 | 3 / 6 | 1.50x | 1.20x | 0 | 5 |",
		"| explicit | 50 | 30 | no | 900 / 2000 | 30 / 60 | - | - | 400 | 5 |",
		"| explicit | closed loop | 31 | - |",
		"- explicit: keeps 5 txn/s; at 50 txn/s commits 30.0 (60%)",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	checkSelfContained(t, string(page))
	if strings.Contains(string(md), "| 900 |") {
		t.Errorf("summary.md: the failed repeat counted in the attribution")
	}
	for _, want := range []string{`<h2 id="attribution">`, `<h2 id="floor">`, `<h2 id="curves">Load curves</h2>`, "<td>1.50x</td>", "against throughput, batch 10", "floor: bare transaction p50"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if n := strings.Count(string(page), "<svg"); n != 2*3+1 {
		t.Errorf("%d SVGs, want the 6 of the sample and the curve", n)
	}
}

func TestBenchBrokerTimesReported(t *testing.T) {
	b, figs := sampleBench(t)
	for rep, remote := range []float64{8, 10, 9} {
		b.Runs = append(b.Runs, result.BenchRun{Mode: "transactional", Realization: "native", Batch: 10, Repeat: rep,
			Counters: map[string]int64{bench.Transactions: 100},
			BrokerRequests: []result.BrokerRequest{
				{API: "TxnShareAcknowledge", Count: 300, TotalMs: remote + 1, RequestQueueMs: 0.1, LocalMs: 0.9, RemoteMs: remote},
				{API: "FetchFollower", Count: 5000, TotalMs: 400},
			}})
	}
	// A failed repeat and one whose reading failed count for nothing.
	b.Runs = append(b.Runs, result.BenchRun{Mode: "transactional", Realization: "native", Batch: 10, Error: "boom",
		Counters: map[string]int64{bench.Transactions: 1}, BrokerRequests: []result.BrokerRequest{{API: "TxnShareAcknowledge", Count: 1, TotalMs: 900}}},
		result.BenchRun{Mode: "transactional", Realization: "native", Batch: 10, Counters: map[string]int64{bench.Transactions: 1},
			BrokerRequestsError: "read request metrics of broker 2: connection refused"})
	dir := t.TempDir()
	if err := reports.WriteBench(dir, b, figs); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{
		"## Where the brokers spend a transaction's time",
		"| transactional/native | 10 | TxnShareAcknowledge | 3.00 | 10 | 0.1 | 0.9 | 9 | 0 | 3 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	for _, unwanted := range []string{"FetchFollower", "| 900 |"} {
		if strings.Contains(string(md), unwanted) {
			t.Errorf("summary.md has %q: not a request of the loop, or a failed repeat", unwanted)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(page), `<h2 id="broker-times">`) {
		t.Errorf("report.html lacks the broker-side table")
	}

	// No repeat read: the reason is printed instead of a table.
	b2, figs2 := sampleBench(t)
	b2.Runs = append(b2.Runs, result.BenchRun{Mode: "explicit", Batch: 10, Counters: map[string]int64{bench.Transactions: 1},
		BrokerRequestsError: "read request metrics of broker 2: connection refused"})
	dir2 := t.TempDir()
	if err := reports.WriteBench(dir2, b2, figs2); err != nil {
		t.Fatal(err)
	}
	md2, _ := os.ReadFile(filepath.Join(dir2, "summary.md"))
	if !strings.Contains(string(md2), "Not read: read request metrics of broker 2: connection refused") {
		t.Errorf("summary.md does not say why the brokers' times are missing:\n%s", md2)
	}
}
