package benchrun

import (
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// curveRun is a finished run of mode at rate that committed tps with the
// given txn_total and txn_commit p50s.
func curveRun(mode ctp.AckMode, rate, tps, totalP50, commitP50 float64, dropped int64) benchResult {
	return benchResult{plan: benchPlan{mode: mode, batch: 10, point: benchPoint{partitions: 4, rate: rate}},
		run: result.BenchRun{Mode: string(mode), Batch: 10, TxnPerSec: tps,
			Latency: map[string]result.Percentiles{
				bench.TxnTotalDuration:  {Count: 100, P50: totalP50, P99: 2 * totalP50},
				bench.TxnCommitDuration: {Count: 100, P50: commitP50, P99: 2 * commitP50}},
			Counters: map[string]int64{bench.DroppedIterations: dropped}}}
}

// TestBenchCurves: the saturation is the highest rate kept within the
// tolerance, a rate missed says what was committed instead, the closed loop
// is the most, a failed repeat counts for nothing, and the floor multiples
// divide by the floor at the curve's latency.
func TestBenchCurves(t *testing.T) {
	rates := []float64{5, 20, 50, 0}
	runs := []benchResult{
		// explicit keeps 5 and 20 (19 of 20 is within 10%), misses 50.
		curveRun(ctp.Explicit, 5, 5, 10, 4, 0), curveRun(ctp.Explicit, 5, 4.9, 12, 4, 0), curveRun(ctp.Explicit, 5, 5, 11, 4, 0),
		curveRun(ctp.Explicit, 20, 19, 14, 5, 0), curveRun(ctp.Explicit, 20, 19.5, 15, 5, 0),
		curveRun(ctp.Explicit, 50, 31, 900, 40, 300), curveRun(ctp.Explicit, 50, 30, 950, 40, 320),
		curveRun(ctp.Explicit, 0, 33, 60, 30, 0),
		// transactional keeps nothing: 17 of 20 is below 90%.
		curveRun(ctp.Transactional, 20, 17, 400, 100, 50),
	}
	failed := curveRun(ctp.Explicit, 20, 1, 1, 1, 0)
	failed.run.Error = "boom"
	runs = append(runs, failed)
	floors := []result.BenchFloor{{LinkLatency: "0s", Txn: result.Percentiles{Count: 200, P50: 5}, TxnCommit: result.Percentiles{Count: 200, P50: 2}}}

	curves := benchCurves(runs, rates, floors, false)
	if len(curves) != 2 {
		t.Fatalf("%d curves, want explicit's and transactional's: %+v", len(curves), curves)
	}
	ex, tx := curves[0], curves[1]
	if ex.Mode != "explicit" || ex.SaturationTps != 20 || ex.MaxTps != 33 || len(ex.Points) != 4 {
		t.Errorf("explicit: %+v, want saturation 20, closed loop 33, four points", ex)
	}
	if p := ex.Points[1]; p.Repeats != 2 || p.AchievedTps != 19.25 || !p.Kept || p.TotalXFloor != 14.5/5 || p.CommitXFloor != 2.5 {
		t.Errorf("explicit at 20 (the failed repeat left out): %+v", p)
	}
	if p := ex.Points[2]; p.Kept || p.Dropped != 620 {
		t.Errorf("explicit at 50: %+v, want not kept, 620 dropped", p)
	}
	if p := ex.Points[3]; p.Kept || p.Rate != "closed" {
		t.Errorf("closed loop: %+v, never kept", p)
	}
	for _, w := range []string{"keeps 20 txn/s", "at 50 txn/s commits 30.5 (61%)", "closed loop 33.0 txn/s"} {
		if !strings.Contains(ex.Words, w) {
			t.Errorf("explicit's words %q lack %q", ex.Words, w)
		}
	}
	if tx.SaturationTps != 0 || len(tx.Points) != 1 || !strings.HasPrefix(tx.Words, "keeps none of the rates; at 20 txn/s commits 17.0") {
		t.Errorf("transactional: %+v, want no rate kept, said so", tx)
	}

	// No floor at the curve's latency: no multiples.
	for _, p := range benchCurves(runs, rates, []result.BenchFloor{{LinkLatency: "5ms", Txn: result.Percentiles{P50: 5}}}, false)[0].Points {
		if p.TotalXFloor != 0 || p.CommitXFloor != 0 {
			t.Errorf("a floor of another link latency was used: %+v", p)
		}
	}

	figs := curveFigures(curves, floors)
	if len(figs[10]) != 1 {
		t.Fatalf("figures %+v, want one for batch 10", figs)
	}
	f := figs[10][0]
	// Transactional has one point: no line of its own.
	if len(f.Curves) != 2 || f.Curves[0].Label != "explicit p50" || !f.Curves[1].Dashed || len(f.Levels) != 1 || f.Levels[0].ValueMs != 5 {
		t.Errorf("figure %+v, want explicit's p50 and p99 and the floor", f)
	}
}

// TestPlanRates: each rate is a sweep point of every mode, in order, and the
// bare loop runs at the first point only.
func TestPlanRates(t *testing.T) {
	o := Options{Rates: []float64{5, 0}, Repeats: 2, Batches: []int{10}}.withDefaults()
	var plans []benchPlan
	add := func(p benchPlan) { plans = append(plans, p) }
	planPoint(&o, benchPoint{partitions: 4, rate: 5}, []ctp.AckMode{ctp.Explicit, ctp.Implicit}, nil, true, add)
	planPoint(&o, benchPoint{partitions: 4, rate: 0}, []ctp.AckMode{ctp.Explicit, ctp.Implicit}, nil, false, add)
	var got []string
	for _, p := range plans {
		got = append(got, p.label()+"@"+rateName(p.point.rate))
	}
	want := "explicit@5 implicit@5 bare@5 bare-sync@5 explicit@5 implicit@5 bare@5 explicit@closed implicit@closed explicit@closed implicit@closed"
	if strings.Join(got, " ") != want {
		t.Errorf("plans\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if n := (benchPoint{partitions: 4, latency: 5 * time.Millisecond, rate: 2.5}).name(); n != "lat5ms-p4-2.5" {
		t.Errorf("point name %q", n)
	}
}

// TestCurveLines: the console names the floor and, per curve, where it
// saturates and its multiples of the floor at the highest rate kept.
func TestCurveLines(t *testing.T) {
	floors := []result.BenchFloor{{LinkLatency: "0s", Txn: result.Percentiles{Count: 200, P50: 5, P99: 9}, TxnCommit: result.Percentiles{Count: 200, P50: 2}}}
	curves := benchCurves([]benchResult{curveRun(ctp.Explicit, 5, 5, 10, 4, 0), curveRun(ctp.Explicit, 20, 12, 300, 9, 90)}, []float64{5, 20}, floors, false)
	got := strings.Join(CurveLines(result.Bench{Floors: floors, Curves: curves}), "\n")
	for _, w := range []string{"floor at link latency 0s: ", "bare transaction p50 5.00 ms p99 9.00 ms",
		"curve explicit batch 10: keeps 5 txn/s; at 20 txn/s commits 12.0 (60%); at 5 txn/s: txn_total p50 10.00 ms = 2.00x the floor, txn_commit p50 4.00 ms = 2.00x"} {
		if !strings.Contains(got, w) {
			t.Errorf("lines\n%s\nlack %q", got, w)
		}
	}
}
