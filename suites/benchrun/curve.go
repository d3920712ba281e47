package benchrun

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
)

// keptTolerance: a mode keeps a target rate when the median of its repeats
// commits at least 90% of it. Not tighter: at 5 txn/s over 10 s one
// transaction still in flight when the measurement ends is 2%.
const keptTolerance = 0.10

// curveKey is one curve: a mode at a batch size and (link latency,
// partitions), over the rates.
type curveKey struct {
	label      string
	batch      int
	latency    time.Duration
	partitions int
}

// benchCurves draws each mode's curve over the rate sweep from the runs
// that did not fail, the points in the order of rates, with the floor
// multiples where a floor was measured at the curve's link latency.
func benchCurves(measured []benchResult, rates []float64, floors []result.BenchFloor, swept bool) []result.BenchCurve {
	var keys []curveKey
	byKey := map[curveKey][]benchResult{}
	for _, r := range measured {
		k := curveKey{label: r.plan.label(), batch: r.plan.batch, latency: r.plan.point.latency, partitions: r.plan.point.partitions}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	var out []result.BenchCurve
	for _, k := range keys {
		c := result.BenchCurve{Mode: k.label, Batch: k.batch}
		if swept {
			c.Partitions, c.LinkLatency = k.partitions, k.latency.String()
		}
		floor := floorAt(floors, k.latency)
		for _, rate := range rates {
			pt, ok := curvePoint(byKey[k], rate, floor)
			if !ok {
				continue
			}
			c.Points = append(c.Points, pt)
			switch {
			case rate <= 0:
				c.MaxTps = pt.AchievedTps
			case pt.Kept:
				c.SaturationTps = rate
			}
		}
		c.Words = saturationWords(c)
		out = append(out, c)
	}
	return out
}

// curvePoint is the median of the repeats at rate that recorded a
// txn_total_duration; ok false when none did.
func curvePoint(rs []benchResult, rate float64, floor *result.BenchFloor) (result.CurvePoint, bool) {
	pt := result.CurvePoint{Rate: rateName(rate), TargetTps: rate}
	var tps, p50, p99, c50, c99 []float64
	for _, r := range rs {
		if r.plan.point.rate != rate || r.run.Error != "" {
			continue
		}
		tot, ok := r.run.Latency[bench.TxnTotalDuration]
		if !ok || tot.Count == 0 {
			continue
		}
		com := r.run.Latency[bench.TxnCommitDuration]
		tps, p50, p99 = append(tps, r.run.TxnPerSec), append(p50, tot.P50), append(p99, tot.P99)
		c50, c99 = append(c50, com.P50), append(c99, com.P99)
		pt.Dropped += r.run.Counters[bench.DroppedIterations]
	}
	if len(tps) == 0 {
		return pt, false
	}
	pt.Repeats = len(tps)
	pt.AchievedTps, pt.TotalP50Ms, pt.TotalP99Ms = medianFloat(tps), medianFloat(p50), medianFloat(p99)
	pt.CommitP50Ms, pt.CommitP99Ms = medianFloat(c50), medianFloat(c99)
	pt.Kept = rate > 0 && pt.AchievedTps >= (1-keptTolerance)*rate
	if floor != nil {
		if floor.Txn.P50 > 0 {
			pt.TotalXFloor = pt.TotalP50Ms / floor.Txn.P50
		}
		if floor.TxnCommit.P50 > 0 && pt.CommitP50Ms > 0 {
			pt.CommitXFloor = pt.CommitP50Ms / floor.TxnCommit.P50
		}
	}
	return pt, true
}

// floorAt is the floor measured at latency, nil when none was.
func floorAt(floors []result.BenchFloor, latency time.Duration) *result.BenchFloor {
	i := slices.IndexFunc(floors, func(f result.BenchFloor) bool { return f.LinkLatency == latency.String() && f.Error == "" })
	if i < 0 {
		return nil
	}
	return &floors[i]
}

// saturationWords say where a curve bends: the highest rate kept, the
// first one missed with what was committed instead, the closed loop's most.
func saturationWords(c result.BenchCurve) string {
	var words []string
	if c.SaturationTps > 0 {
		words = append(words, fmt.Sprintf("keeps %s txn/s", rateName(c.SaturationTps)))
	}
	for _, pt := range c.Points {
		if pt.TargetTps > 0 && !pt.Kept {
			words = append(words, fmt.Sprintf("at %s txn/s commits %.1f (%.0f%%)", pt.Rate, pt.AchievedTps, 100*pt.AchievedTps/pt.TargetTps))
			break
		}
	}
	if c.SaturationTps == 0 && slices.ContainsFunc(c.Points, func(p result.CurvePoint) bool { return p.TargetTps > 0 }) {
		words = append([]string{"keeps none of the rates"}, words...)
	}
	if c.MaxTps > 0 {
		words = append(words, fmt.Sprintf("closed loop %.1f txn/s", c.MaxTps))
	}
	return strings.Join(words, "; ")
}

// curveFigures draw the curves per batch size and (link latency,
// partitions): txn_total_duration p50 (solid) and p99 (dashed) of each mode
// against what it achieved, the bare transaction's p50 across.
func curveFigures(curves []result.BenchCurve, floors []result.BenchFloor) result.BenchFigures {
	figs := result.BenchFigures{}
	type at struct {
		batch      int
		latency    string
		partitions int
	}
	var order []at
	byAt := map[at][]result.BenchCurve{}
	for _, c := range curves {
		if len(c.Points) < 2 {
			continue // one rate: no curve to draw
		}
		k := at{c.Batch, c.LinkLatency, c.Partitions}
		if _, ok := byAt[k]; !ok {
			order = append(order, k)
		}
		byAt[k] = append(byAt[k], c)
	}
	for _, k := range order {
		f := result.Figure{Title: fmt.Sprintf("%s against throughput, batch %d", bench.TxnTotalDuration, k.batch), YLabel: "ms"}
		lat := "0s"
		if k.latency != "" {
			f.Title += fmt.Sprintf(" (link latency %s, %d partitions)", k.latency, k.partitions)
			lat = k.latency
		}
		for _, c := range byAt[k] {
			p50 := result.Curve{Label: c.Mode + " p50", Key: c.Mode}
			p99 := result.Curve{Label: c.Mode + " p99", Key: c.Mode, Dashed: true}
			for _, pt := range c.Points {
				p50.Points = append(p50.Points, result.CurveXY{Tps: pt.AchievedTps, ValueMs: pt.TotalP50Ms})
				p99.Points = append(p99.Points, result.CurveXY{Tps: pt.AchievedTps, ValueMs: pt.TotalP99Ms})
			}
			f.Curves = append(f.Curves, p50, p99)
		}
		for _, fl := range floors {
			if fl.LinkLatency == lat && fl.Error == "" {
				f.Levels = append(f.Levels, result.Level{Label: "floor: bare transaction p50", ValueMs: fl.Txn.P50})
			}
		}
		figs[k.batch] = append(figs[k.batch], f)
	}
	return figs
}

// CurveLines are the console's lines of a bench's floor and curves: per
// floor the bare transaction; per curve where it saturates and, at the
// highest rate it kept (else its first), its p50s as multiples of the floor.
func CurveLines(b result.Bench) []string {
	var out []string
	for _, f := range b.Floors {
		out = append(out, floorLine(f))
	}
	for _, c := range b.Curves {
		where := fmt.Sprintf("batch %d", c.Batch)
		if c.LinkLatency != "" {
			where += fmt.Sprintf(", link latency %s, %d partitions", c.LinkLatency, c.Partitions)
		}
		line := fmt.Sprintf("curve %s %s: %s", c.Mode, where, c.Words)
		if len(c.Points) > 0 {
			pt := c.Points[0]
			for _, p := range c.Points {
				if p.Kept {
					pt = p
				}
			}
			if pt.TotalXFloor > 0 {
				line += fmt.Sprintf("; at %s: txn_total p50 %.2f ms = %.2fx the floor, txn_commit p50 %.2f ms = %.2fx", rateWords(pt.TargetTps), pt.TotalP50Ms, pt.TotalXFloor, pt.CommitP50Ms, pt.CommitXFloor)
			}
		}
		out = append(out, line)
	}
	return out
}
