package bench

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"path/filepath"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// LatencyOverTime is metric's percentile q (0-100) per step, offsets counted
// from origin (the run's start). step is rounded up to a whole number of slots;
// steps without values are left out (a gap, not a zero).
func (s *Snapshot) LatencyOverTime(metric string, origin time.Time, step time.Duration, q float64) result.TimeSeries {
	ts := result.TimeSeries{Label: fmt.Sprintf("%s p%s", metric, percentileLabel(q))}
	per := s.slotsPerStep(step)
	buckets := map[int64][]*hdr.PackedHistogram{}
	for i, p := range s.latencies[metric] {
		b := s.stepOf(i, origin, per)
		buckets[b] = append(buckets[b], p)
	}
	// One dense histogram, reused: a dense one per step would cost ~200 KB each.
	h := NewHistogram()
	for _, b := range wholeSteps(sortedSlots(buckets)) {
		h.h.Reset()
		for _, p := range buckets[b] {
			p.MergeInto(h.h)
		}
		ts.Points = append(ts.Points, result.TimePoint{
			Offset: time.Duration(b) * time.Duration(per) * s.interval,
			Value:  float64(h.Quantile(q)) / float64(time.Millisecond),
		})
	}
	return ts
}

// RateOverTime is counter's rate per second per step, offsets from origin. Steps
// between the first and the last that hold a count are filled with zeros: a
// stall shows as a drop to zero.
func (s *Snapshot) RateOverTime(counter string, origin time.Time, step time.Duration) result.TimeSeries {
	ts := result.TimeSeries{Label: counter + " /s"}
	per := s.slotsPerStep(step)
	buckets := map[int64]int64{}
	for i, n := range s.counters[counter] {
		buckets[s.stepOf(i, origin, per)] += n
	}
	keys := wholeSteps(sortedSlots(buckets))
	if len(keys) == 0 {
		return ts
	}
	stepLen := time.Duration(per) * s.interval
	for b := keys[0]; b <= keys[len(keys)-1]; b++ {
		ts.Points = append(ts.Points, result.TimePoint{
			Offset: time.Duration(b) * stepLen,
			Value:  float64(buckets[b]) / stepLen.Seconds(),
		})
	}
	return ts
}

// wholeSteps leaves out the steps before the origin: the warm-up's tail,
// which a figure over time drew at -1 s as a partial step (a fake ramp).
func wholeSteps(keys []int64) []int64 {
	for len(keys) > 0 && keys[0] < 0 {
		keys = keys[1:]
	}
	return keys
}

func (s *Snapshot) slotsPerStep(step time.Duration) int64 {
	per := int64((step + s.interval - 1) / s.interval)
	if per < 1 {
		per = 1
	}
	return per
}

// stepOf is the index of the step that holds slot i, counted from origin.
func (s *Snapshot) stepOf(i int64, origin time.Time, per int64) int64 {
	off := s.slotStart(i).Sub(origin)
	stepLen := time.Duration(per) * s.interval
	b := int64(off / stepLen)
	if off < 0 && off%stepLen != 0 {
		b-- // floor, not truncation, for slots before the origin
	}
	return b
}

// Shades turns fault windows into shaded bands of a time figure whose offsets
// count from origin.
func Shades(windows []Window, origin time.Time) []result.Shade {
	var out []result.Shade
	for _, w := range windows {
		end := w.End
		if !end.After(w.Start) {
			end = w.Start
		}
		out = append(out, result.Shade{Label: w.Name, From: w.Start.Sub(origin), To: end.Sub(origin)})
	}
	return out
}

// SpectrumFigure is one percentile-spectrum figure with a line per metric of s
// (those that hold values).
func (s *Snapshot) SpectrumFigure(title string, metrics ...string) result.Figure {
	f := result.Figure{Title: title, YLabel: "latency (ms)"}
	for _, m := range metrics {
		if h := s.Histogram(m); h.Count() > 0 {
			f.Spectra = append(f.Spectra, h.Spectrum(m))
		}
	}
	return f
}

// CellFigures are the standard figures of one cell or bench repeat: the
// percentile spectrum of the given latency metrics, their p50 and p99 over time
// with the fault windows shaded, and the throughput of the given counters over
// time. Figures without data are left out.
func (s *Snapshot) CellFigures(origin time.Time, windows []Window, latencies []string, counters []string) []result.Figure {
	const step = time.Second
	var figs []result.Figure
	if f := s.SpectrumFigure("latency percentile spectrum", latencies...); len(f.Spectra) > 0 {
		figs = append(figs, f)
	}
	over := result.Figure{Title: "latency over time (p50, p99)", YLabel: "latency (ms)", Shades: Shades(windows, origin)}
	for _, m := range latencies {
		for _, q := range []float64{50, 99} {
			if ts := s.LatencyOverTime(m, origin, step, q); len(ts.Points) > 0 {
				over.Series = append(over.Series, ts)
			}
		}
	}
	if len(over.Series) > 0 {
		figs = append(figs, over)
	}
	thr := result.Figure{Title: "throughput over time", YLabel: "per second", Shades: Shades(windows, origin)}
	for _, c := range counters {
		if ts := s.RateOverTime(c, origin, step); len(ts.Points) > 0 {
			thr.Series = append(thr.Series, ts)
		}
	}
	if len(thr.Series) > 0 {
		figs = append(figs, thr)
	}
	return figs
}

// WriteHGRMs writes one .hgrm file per latency metric into dir, named
// prefix + metric + ".hgrm" (prefix such as "explicit-batch10-"), and returns
// the file names written.
func (s *Snapshot) WriteHGRMs(dir, prefix string) ([]string, error) {
	var names []string
	for _, m := range s.Latencies() {
		name := prefix + m + ".hgrm"
		if err := s.Histogram(m).WriteHGRMFile(filepath.Join(dir, name)); err != nil {
			return names, err
		}
		names = append(names, name)
	}
	return names, nil
}

// percentileLabel prints 99 as "99" and 99.9 as "99.9".
func percentileLabel(q float64) string {
	return fmt.Sprintf("%g", q)
}
