package bench

import (
	"github.com/sharechaos/sharechaos/result"
	"time"
)

// Phase is a part of a run relative to its faults.
type Phase string

const (
	// Before: slots that end before the first fault window starts.
	Before Phase = "before"
	// During: slots that overlap a fault window.
	During Phase = "during"
	// After: every other slot (after a fault window, including between two).
	After Phase = "after"
)

// Phases in report order.
var Phases = []Phase{Before, During, After}

// Window is the time a fault was active. An instant fault (a crash point) has
// End equal to Start (or zero): only the slot holding Start is "during" it;
// give it an End to count the recovery as part of the fault.
type Window struct {
	Name       string
	Start, End time.Time
}

// PhaseOf says which phase the time slot [from, to) belongs to. A slot that
// straddles a window's edge counts as during: its values may have met the fault.
func PhaseOf(from, to time.Time, windows []Window) Phase {
	if len(windows) == 0 {
		return Before
	}
	first := windows[0].Start
	for _, w := range windows {
		if w.Start.Before(first) {
			first = w.Start
		}
		end := w.End
		if !end.After(w.Start) {
			// Instant: the slot that holds the instant.
			if !w.Start.Before(from) && w.Start.Before(to) {
				return During
			}
			continue
		}
		if from.Before(end) && to.After(w.Start) {
			return During
		}
	}
	if !to.After(first) {
		return Before
	}
	return After
}

// PhaseHistograms splits metric into its phases around the fault windows
// (every slot in Before when there are none).
func (s *Snapshot) PhaseHistograms(metric string, windows []Window) map[Phase]*Histogram {
	out := map[Phase]*Histogram{Before: NewHistogram(), During: NewHistogram(), After: NewHistogram()}
	for i, p := range s.latencies[metric] {
		from := s.slotStart(i)
		ph := PhaseOf(from, from.Add(s.interval), windows)
		p.MergeInto(out[ph].h)
	}
	return out
}

// PhaseCounter splits a counter's total into phases like PhaseHistograms.
func (s *Snapshot) PhaseCounter(name string, windows []Window) map[Phase]int64 {
	out := map[Phase]int64{}
	for i, n := range s.counters[name] {
		from := s.slotStart(i)
		out[PhaseOf(from, from.Add(s.interval), windows)] += n
	}
	return out
}

// LatencySummary summarizes every latency metric for result.json (Cell.Latency,
// BenchRun.Latency): key "metric" for the whole run and, when windows are given,
// "metric/before", "metric/during", "metric/after" for the phases that hold values.
func (s *Snapshot) LatencySummary(windows []Window) map[string]result.Percentiles {
	out := map[string]result.Percentiles{}
	for _, metric := range s.Latencies() {
		out[metric] = s.Histogram(metric).Percentiles()
		if len(windows) == 0 {
			continue
		}
		for ph, h := range s.PhaseHistograms(metric, windows) {
			if h.Count() > 0 {
				out[metric+"/"+string(ph)] = h.Percentiles()
			}
		}
	}
	return out
}

// CounterTotals returns every counter's total (BenchRun.Counters).
func (s *Snapshot) CounterTotals() map[string]int64 {
	out := map[string]int64{}
	for _, name := range s.Counters() {
		out[name], _ = s.Counter(name)
	}
	return out
}
