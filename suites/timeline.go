package suites

import (
	"github.com/sharechaos/sharechaos/result"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/history"
)

// timelineStep is the timelines' bucket.
const timelineStep = time.Second

// committedRecords keys the committed-records series' colour.
const committedRecords = "committed_records"

// cellTimelines are a cell's figures over time, from its histories: the
// records committed per second and the commit latency of each commit, with
// the fault windows (fired to healed) shaded. Time 0 is the cell's first
// event; the last, partial second is left out (it would draw a fake drop).
func cellTimelines(c result.Cell, h history.History) []result.Figure {
	if len(h) == 0 {
		return nil
	}
	origin := h[0].TS
	last := h[0].TS
	for _, e := range h {
		origin, last = min(origin, e.TS), max(last, e.TS)
	}
	full := time.Duration(last-origin) / timelineStep // whole seconds only
	perSec := make([]float64, full)
	var latency []result.TimePoint
	for _, e := range h {
		if e.F != history.FCommit || e.Type != history.OK {
			continue
		}
		off := time.Duration(e.TS - origin)
		if b := off / timelineStep; b < full {
			perSec[b] += float64(len(e.Records))
		}
		latency = append(latency, result.TimePoint{Offset: off, Value: float64(e.DurNS) / float64(time.Millisecond)})
	}
	if len(latency) == 0 {
		return nil
	}
	rate := result.TimeSeries{Label: "committed records /s", Key: committedRecords}
	for i, n := range perSec {
		rate.Points = append(rate.Points, result.TimePoint{Offset: time.Duration(i) * timelineStep, Value: n})
	}
	shades := faultShades(c.Fault, time.Unix(0, origin))
	return []result.Figure{
		{Title: c.Name() + ": committed records per second", YLabel: "records per second", Series: []result.TimeSeries{rate}, Shades: shades},
		{Title: c.Name() + ": commit latency, each commit", YLabel: "milliseconds",
			Series: []result.TimeSeries{{Label: bench.TxnCommitDuration, Key: bench.TxnCommitDuration, Points: latency}}, Shades: shades},
	}
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
				label := c.Mode
				if c.Realization != "" {
					label += "/" + c.Realization
				}
				sp := h.Spectrum(label)
				sp.Key = c.Mode
				f.Spectra = append(f.Spectra, sp)
			}
			if len(f.Spectra) > 1 {
				out[s] = append(out[s], f)
			}
		}
	}
	return out
}
