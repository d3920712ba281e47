package benchrun

import (
	"context"
	"errors"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/harness"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestBenchEmbedded runs a small bench of all three modes on the embedded
// cluster and checks what it leaves: bench.json with interleaved runs, the
// realization named, a comparison row per mode, batch, metric and
// percentile, summary.md's tables, report.html's plots, .hgrm files per
// metric and mode, each run's histories, the harness overhead, and a passing
// threshold giving PASS.
func TestBenchEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	b := runBench(t, Options{Common: harness.Common{Backend: "embedded", TxnAcks: "ledger", Seed: 5, Thresholds: []string{"txn_total_duration: p(99)<60s", "dropped_iterations{mode:explicit}: count<1000000"}}, Rates: []float64{20}, Duration: 3 * time.Second, Warmup: time.Second, Repeats: 2, Batches: []int{1, 10}, Workers: 2, Overhead: true})
	dir := b.dir
	if b.Verdict != verdict.Pass || b.ExitCode != 0 {
		t.Fatalf("verdict %s exit %d, want PASS 0; thresholds %+v notes %v", b.Verdict, b.ExitCode, b.Thresholds, b.Notes)
	}
	if b.Backend != "embedded" {
		t.Errorf("backend = %q", b.Backend)
	}

	// Interleaved: per (batch, repeat) the modes in order T E I.
	var order []string
	for _, r := range b.Runs {
		order = append(order, r.Label())
		if r.Error != "" {
			t.Errorf("run %s batch %d repeat %d: %s", r.Label(), r.Batch, r.Repeat, r.Error)
		}
		if r.Latency[bench.TxnTotalDuration].Count == 0 || r.TxnPerSec <= 0 {
			t.Errorf("run %s batch %d repeat %d measured nothing: %+v", r.Label(), r.Batch, r.Repeat, r)
		}
		if _, ok := r.Latency[bench.E2ELatency]; !ok {
			t.Errorf("run %s batch %d repeat %d: no e2e_latency", r.Label(), r.Batch, r.Repeat)
		}
		if _, ok := r.Counters[bench.DroppedIterations]; !ok {
			t.Errorf("run %s: dropped_iterations not declared", r.Label())
		}
	}
	want := slices.Repeat([]string{"transactional/ledger", "explicit", "implicit"}, 4)
	if !slices.Equal(order, want) {
		t.Errorf("run order %v, want %v", order, want)
	}
	if !slices.Contains(b.Modes, "transactional/ledger") {
		t.Errorf("modes %v do not name the realization", b.Modes)
	}

	// A row per batch, compared metric, percentile and candidate; implicit
	// has no share_ack_duration and so no row for it.
	rows := map[string]result.BenchComparison{}
	for _, c := range b.Comparisons {
		rows[c.Candidate+"|"+c.Metric+"|"+c.Percentile+"|"+strconv.Itoa(c.Batch)] = c
		if c.Baseline != "explicit" || c.N1 != 2 || c.N2 != 2 {
			t.Errorf("row %+v: want baseline explicit, n=2+2", c)
		}
		if !c.TooFewSamples {
			t.Errorf("row %s %s: n=2+2 must say too few samples", c.Candidate, c.Metric)
		}
	}
	for _, batch := range []string{"1", "10"} {
		for _, cand := range []string{"transactional/ledger", "implicit"} {
			for _, m := range []string{bench.TxnTotalDuration, bench.TxnCommitDuration, bench.E2ELatency} {
				for _, p := range []string{"p50", "p99"} {
					c, ok := rows[cand+"|"+m+"|"+p+"|"+batch]
					if !ok {
						t.Errorf("no comparison row for %s %s %s batch %s", cand, m, p, batch)
						continue
					}
					if c.Ratio <= 0 || c.P <= 0 || c.Words == "" {
						t.Errorf("row %s %s %s batch %s incomplete: %+v", cand, m, p, batch, c)
					}
				}
			}
		}
		if _, ok := rows["transactional/ledger|share_ack_duration|p50|"+batch]; !ok {
			t.Errorf("no share_ack_duration row for transactional at batch %s", batch)
		}
		if _, ok := rows["implicit|share_ack_duration|p50|"+batch]; ok {
			t.Errorf("a share_ack_duration row for implicit, which records none")
		}
	}
	if len(b.Thresholds) == 0 || !bench.AllPass(b.Thresholds) {
		t.Errorf("thresholds %+v, want all evaluated and passing", b.Thresholds)
	}
	if b.HarnessOverhead <= 0 {
		t.Errorf("harness overhead not measured; notes %v", b.Notes)
	}

	summary := readFile(t, filepath.Join(dir, "summary.md"))
	for _, s := range []string{"## txn_total_duration, batch 1", "## txn_total_duration, batch 10", "| explicit (baseline) |",
		"| transactional/ledger |", "| implicit |", "harness overhead", "e2e_latency: per output record"} {
		if !strings.Contains(summary, s) {
			t.Errorf("summary.md lacks %q", s)
		}
	}
	html := readFile(t, filepath.Join(dir, "report.html"))
	if n := strings.Count(html, "<svg"); n < 4 {
		t.Errorf("report.html has %d plots, want at least 4", n)
	}
	// SVG namespace URIs are names, not loads; nothing may be fetched.
	for _, load := range []string{`src="http`, `href="http`, "<script src", "<link ", "url(http"} {
		if strings.Contains(html, load) {
			t.Errorf("report.html loads from the network: %q", load)
		}
	}
	for _, l := range []string{"transactional-ledger", "explicit", "implicit"} {
		for _, batch := range []string{"1", "10"} {
			h := readFile(t, filepath.Join(dir, "hgrm", l+"-batch"+batch+"-txn_total_duration.hgrm"))
			if !strings.Contains(h, "Value     Percentile TotalCount 1/(1-Percentile)") || !strings.Contains(h, "Total count") {
				t.Errorf("%s batch %s .hgrm is not a percentile distribution:\n%s", l, batch, h)
			}
		}
	}
	hist, _ := filepath.Glob(filepath.Join(dir, "runs", "*-explicit-b10-*-r2", "histories", "w*.jsonl"))
	if len(hist) != 2 {
		t.Errorf("histories of explicit batch 10 repeat 2: %v, want one per worker", hist)
	}
	if _, err := os.Stat(filepath.Join(dir, "bench.json")); err != nil {
		t.Error(err)
	}
	// The overhead runs are paired: both loops in one run, each side's
	// transactions on a time line, the instrumented side with its histories.
	for _, f := range []string{bareTimelineFile, filepath.Join("instrumented", intendedFile), filepath.Join("instrumented", "histories", "w1.1.jsonl")} {
		got, _ := filepath.Glob(filepath.Join(dir, "runs", "*-bare-b10-*-r1", f))
		if len(got) != 1 || len(readFile(t, got[0])) == 0 {
			t.Errorf("paired overhead run batch 10 repeat 1: %s missing or empty (%v)", f, got)
		}
	}
	if !slices.ContainsFunc(b.Notes, func(n string) bool {
		return strings.HasPrefix(n, "harness overhead, batch 10:") && strings.Contains(n, "paired runs")
	}) {
		t.Errorf("no paired harness-overhead note for batch 10 in %v", b.Notes)
	}
}

// TestBenchStallRaisesCorrectedPercentiles stalls one iteration for a second
// (a slow iteration: the worker does nothing meanwhile, as in a GC pause or a
// hung call). Latency from the intended start must show it on every
// transaction the stall delayed; the service time, measured from each
// transaction's actual begin, must not: that is coordinated omission, and
// txn_total_duration is corrected for it.
func TestBenchStallRaisesCorrectedPercentiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	const stall = time.Second
	o := Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 9}, Rates: []float64{20}, Duration: 4 * time.Second, Warmup: time.Second, Repeats: 1, Batches: []int{1}, Workers: 1}
	o.testStall.after, o.testStall.d = time.Second, stall
	b := runBench(t, o)
	if len(b.Runs) != 1 || b.Runs[0].Error != "" {
		t.Fatalf("runs %+v", b.Runs)
	}
	lat := b.Runs[0].Latency
	total, service := lat[bench.TxnTotalDuration], lat[bench.TxnServiceDuration]
	t.Logf("txn_total_duration p50 %.1fms p90 %.1fms max %.1fms; txn_service_duration p50 %.1fms p90 %.1fms max %.1fms",
		total.P50, total.P90, total.Max, service.P50, service.P90, service.Max)
	stallMs := float64(stall / time.Millisecond)
	// At 20/s a one-second stall delays about 20 of ~80 transactions, by
	// 1 s down to 0: a tenth of them by more than half a second.
	if total.Max < stallMs {
		t.Errorf("txn_total_duration max %.1fms: the %v stall does not show", total.Max, stall)
	}
	if total.P90 < stallMs/4 {
		t.Errorf("txn_total_duration p90 %.1fms: the transactions the stall delayed are not counted", total.P90)
	}
	if service.Max >= stallMs/2 {
		t.Errorf("txn_service_duration max %.1fms: the stall sat outside the transactions, service time must not see it", service.Max)
	}
	if total.P90 < 5*service.P90 {
		t.Errorf("corrected p90 %.1fms vs uncorrected %.1fms: correction made no difference", total.P90, service.P90)
	}
}

// TestBenchThresholdFails: a threshold that cannot hold makes the bench
// THRESHOLD-FAILED (exit 3) and says which and why. (A typo in a metric is a
// usage error before anything runs: TestBenchUsageErrors.)
func TestBenchThresholdFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	b := runBench(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit, ctp.Implicit}, Seed: 3, Thresholds: []string{"txn_commit_duration: p(99)<1us", "txn_total_duration: p(50)<60s",
		"share_ack_duration{mode:explicit}: max<60s"}}, Rates: []float64{20}, Duration: 2 * time.Second, Repeats: 1, Batches: []int{1}, Workers: 1})
	if b.Verdict != verdict.ThresholdFailed || b.ExitCode != verdict.ExitThresholdFailed {
		t.Fatalf("verdict %s exit %d, want THRESHOLD-FAILED 3", b.Verdict, b.ExitCode)
	}
	got := map[string][]bool{}
	for _, r := range b.Thresholds {
		got[r.Threshold] = append(got[r.Threshold], r.Pass)
		if r.Scope == "" {
			t.Errorf("threshold %q has no scope", r.Threshold)
		}
	}
	want := map[string][]bool{
		"txn_commit_duration: p(99)<1us":             {false, false},
		"txn_total_duration: p(50)<60s":              {true, true},
		"share_ack_duration{mode:explicit}: max<60s": {true}, // not judged on implicit: it has no acks to time
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("%s: pass %v, want %v", k, got[k], v)
		}
	}
	summary := readFile(t, filepath.Join(b.dir, "summary.md"))
	if !strings.Contains(summary, "THRESHOLD-FAILED") || !strings.Contains(summary, "txn_commit_duration: p(99)<1us") {
		t.Errorf("summary.md does not show the failed threshold:\n%s", summary)
	}
}

// TestBenchUsageErrors: bad options are usage errors naming the flag, and a
// bench that ran nothing leaves nothing behind, including a fault the backend
// cannot run, found once the cluster is up.
func TestBenchUsageErrors(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Rates: []float64{-1}}, "--rate"},
		{Options{Rates: []float64{0, 5}}, "the sweep's last point"},
		{Options{Rates: []float64{20, 5}}, "from low to high"},
		{Options{Rates: []float64{5, 5}}, "each once"},
		{Options{Common: harness.Common{Thresholds: []string{"no_such_metric: p(99)<1s"}}}, `unknown metric "no_such_metric"`},
		{Options{Batches: []int{0}}, "--batch 0"},
		{Options{Common: harness.Common{Modes: []ctp.AckMode{"sometimes"}}}, `--mode "sometimes"`},
		{Options{Common: harness.Common{Modes: []ctp.AckMode{ctp.Explicit, ctp.Explicit}}}, "given twice"},
		{Options{Repeats: -2}, "--repeats"},
		{Options{Latencies: []time.Duration{-time.Millisecond}}, "--latency"},
		{Options{Partitions: []int{0}}, "--partitions"},
		{Options{Workers: 100}, "--workers"},
		{Options{Common: harness.Common{Thresholds: []string{"txn_commit_duration p99 250"}}}, "--threshold"},
		{Options{Fault: "no-such-fault"}, `--fault "no-such-fault"`},
		{Options{Fault: "crash-after-commit"}, "cluster faults only"},
		{Options{Common: harness.Common{Backend: "cloud"}}, "--backend"},
		{Options{Common: harness.Common{TxnAcks: "maybe"}}, "--txn-acks"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "b")
		c.o.Out = out
		_, err := Run(context.Background(), c.o)
		var ue *harness.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want a usage error naming %q", c.o, err, c.want)
		}
		if _, serr := os.Stat(out); !os.IsNotExist(serr) {
			t.Errorf("%+v: a bench that ran nothing left %s", c.o, out)
		}
	}
	if testing.Short() {
		return
	}
	out := filepath.Join(t.TempDir(), "b")
	_, err := Run(context.Background(), Options{Common: harness.Common{Backend: "embedded", Out: out}, Fault: "broker-kill"})
	var ue *harness.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--fault broker-kill") {
		t.Errorf("broker-kill on embedded: err %v, want a usage error naming --fault", err)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("a bench that ran nothing left %s", out)
	}
}

func TestPlanInput(t *testing.T) {
	o := Options{Duration: 10 * time.Second, Warmup: 3 * time.Second, Workers: 2, MaxInput: 400_000}
	p := planInput(&o, 100, 20)
	// 20/s x 13 s x 100 = 26000, +25% = 32500, + 4 batches x 2 workers.
	if p.initial != 33300 || p.lowWater != 0 || p.capped {
		t.Errorf("open loop: %+v, want 33300 records and no top-up", p)
	}
	o.MaxInput = 10_000
	if p := planInput(&o, 100, 20); p.initial != 10_000 || !p.capped || p.lowWater == 0 {
		t.Errorf("capped open loop: %+v, want the cap and a top-up", p)
	}
	o.MaxInput = 400_000
	if p := planInput(&o, 10, 0); p.initial < p.lowWater || p.lowWater == 0 || p.refill == 0 {
		t.Errorf("closed loop: %+v, want a top-up", p)
	}
}

// benchOut is a finished bench with the directory it wrote.
type benchOut struct {
	result.Bench
	dir string
}

func runBench(t *testing.T, o Options) benchOut {
	t.Helper()
	o.Out = filepath.Join(t.TempDir(), "bench")
	if testing.Verbose() {
		o.Progress = testWriter{t}
	}
	b, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("bench: %v", err)
	}
	t.Logf("bench directory: %s (seed %d)", o.Out, b.Seed)
	for _, f := range []string{"bench.json", "summary.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(o.Out, f)); err != nil {
			t.Errorf("report file missing: %v", err)
		}
	}
	return benchOut{Bench: b, dir: o.Out}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
	}
	return string(b)
}
