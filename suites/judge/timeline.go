package judge

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/history"
)

// The timelines' buckets: one second for a short cell, wider for a long one
// (a soak), so a figure never has more than about timelineMaxBuckets
// buckets and stays readable over hours.
const timelineMaxBuckets = 300

var timelineSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour}

// timelineStepFor is the bucket for a cell that lasted span.
func timelineStepFor(span time.Duration) time.Duration {
	for _, s := range timelineSteps {
		if span/s <= timelineMaxBuckets {
			return s
		}
	}
	return timelineSteps[len(timelineSteps)-1]
}

// eachCommitUpTo is how many commits the latency timeline draws one by
// one; a cell with more (a soak) gets its p50, p99 and max per bucket.
const eachCommitUpTo = 2000

// committedRecords keys the committed-records series' colour.
const committedRecords = "committed_records"

// cellTimelines are a cell's figures over time, from its histories: the
// records committed per second and the commit latency (each commit, or per
// bucket for a long cell), with the fault windows (fired to healed) shaded.
// Time 0 is the cell's first event; the last, partial bucket is left out of
// the rate (it would draw a fake drop).
func cellTimelines(c result.Cell, h history.History) []result.Figure {
	if len(h) == 0 {
		return nil
	}
	origin := h[0].TS
	last := h[0].TS
	for _, e := range h {
		origin, last = min(origin, e.TS), max(last, e.TS)
	}
	step := timelineStepFor(time.Duration(last - origin))
	full := time.Duration(last-origin) / step // whole buckets only
	perBucket := make([]float64, full)
	var latency []result.TimePoint
	for _, e := range h {
		if e.F != history.FCommit || e.Type != history.OK {
			continue
		}
		off := time.Duration(e.TS - origin)
		if b := off / step; b < full {
			perBucket[b] += float64(len(e.Records))
		}
		latency = append(latency, result.TimePoint{Offset: off, Value: float64(e.DurNS) / float64(time.Millisecond)})
	}
	if len(latency) == 0 {
		return nil
	}
	rate := result.TimeSeries{Label: "committed records /s", Key: committedRecords}
	for i, n := range perBucket {
		rate.Points = append(rate.Points, result.TimePoint{Offset: time.Duration(i) * step, Value: n / step.Seconds()})
	}
	shades := faultShades(c.Fault, time.Unix(0, origin))
	rateTitle, latencyTitle := c.Name()+": committed records per second", c.Name()+": commit latency, each commit"
	series := []result.TimeSeries{{Label: bench.TxnCommitDuration, Key: bench.TxnCommitDuration, Points: latency}}
	if step > time.Second {
		rateTitle += fmt.Sprintf(" (mean over %s)", step)
	}
	if len(latency) > eachCommitUpTo {
		latencyTitle = fmt.Sprintf("%s: commit latency per %s (%d commits)", c.Name(), step, len(latency))
		series = latencyPerBucket(latency, step)
	}
	return []result.Figure{
		{Title: rateTitle, YLabel: "records per second", Series: []result.TimeSeries{rate}, Shades: shades},
		{Title: latencyTitle, YLabel: "milliseconds", Series: series, Shades: shades},
	}
}

// latencyPerBucket is the p50, p99 and max of the commit latencies in each
// bucket of step (points in time order), drawn at the bucket's start.
func latencyPerBucket(points []result.TimePoint, step time.Duration) []result.TimeSeries {
	qs := []struct {
		label string
		q     float64
	}{{" p50", 0.50}, {" p99", 0.99}, {" max", 1}}
	out := make([]result.TimeSeries, len(qs))
	for i, q := range qs {
		out[i] = result.TimeSeries{Label: bench.TxnCommitDuration + q.label, Key: bench.TxnCommitDuration + q.label}
	}
	out[2].Key = "commit_latency_max" // a colour of its own, not the p50's
	var bucket []float64
	flush := func(b time.Duration) {
		if len(bucket) == 0 {
			return
		}
		slices.Sort(bucket)
		for i, q := range qs {
			v := bucket[min(len(bucket)-1, int(q.q*float64(len(bucket))))]
			out[i].Points = append(out[i].Points, result.TimePoint{Offset: b * step, Value: v})
		}
		bucket = bucket[:0]
	}
	cur := time.Duration(-1)
	for _, p := range points {
		if b := p.Offset / step; b != cur {
			flush(cur)
			cur = b
		}
		bucket = append(bucket, p.Value)
	}
	flush(cur)
	return out
}

// faultShades pairs each firing with the heal after it; a worker fault (no
// heal) is an instant.
func faultShades(f result.Fault, origin time.Time) []result.Shade {
	var out []result.Shade
	healed := slices.Clone(f.Healed)
	for _, at := range f.Times {
		sh := result.Shade{Label: f.Name, From: at.Sub(origin), To: at.Sub(origin)}
		for i, hd := range healed {
			if !hd.Before(at) {
				sh.To = hd.Sub(origin)
				healed = slices.Delete(healed, i, i+1)
				break
			}
		}
		out = append(out, sh)
	}
	return out
}

// scenarioOverlays is, per scenario, one figure per metric overlaying the
// modes' percentile spectra (the first repeat of each mode), one colour per
// mode: where the modes differ, and by how much in the tail.
func scenarioOverlays(cells []result.Cell, hists map[string]map[string]*bench.Histogram) map[string][]result.Figure {
	out := map[string][]result.Figure{}
	var order []string
	byScenario := map[string][]result.Cell{}
	for _, c := range cells {
		if _, ok := hists[c.ID()]; !ok || c.Repeat > 1 {
			continue
		}
		if _, ok := byScenario[c.Scenario]; !ok {
			order = append(order, c.Scenario)
		}
		byScenario[c.Scenario] = append(byScenario[c.Scenario], c)
	}
	for _, s := range order {
		for _, m := range []string{bench.TxnCommitDuration, bench.TxnTotalDuration} {
			f := result.Figure{Title: s + ": " + m + " by mode", YLabel: "milliseconds"}
			for _, c := range byScenario[s] {
				h := hists[c.ID()][m]
				if h == nil || h.Count() == 0 {
					continue
				}
				label := c.Mode + c.NameParts().Dimensions()
				sp := h.Spectrum(label)
				// A mode's colour; another client's cells of it a colour
				// of their own (drawn from the key), so they stand apart.
				sp.Key = c.Mode + result.NameParts{Client: c.Client}.Dimensions()
				f.Spectra = append(f.Spectra, sp)
			}
			if len(f.Spectra) > 1 {
				out[s] = append(out[s], f)
			}
		}
	}
	return out
}
