package bench

import (
	"cmp"
	"github.com/sharechaos/sharechaos/result"
	"slices"
	"time"
)

// FillCell returns c with its latency fields filled from the cell's snapshot:
// Latency (whole run and, given fault windows, per phase), CommitP50Ms and
// CommitP99Ms from txn_commit_duration, TxnP50Ms and TxnP99Ms from
// txn_total_duration.
func FillCell(c result.Cell, s *Snapshot, windows []Window) result.Cell {
	c.Latency = s.LatencySummary(windows)
	commit, txn := c.Latency[TxnCommitDuration], c.Latency[TxnTotalDuration]
	c.CommitP50Ms, c.CommitP99Ms = commit.P50, commit.P99
	c.TxnP50Ms, c.TxnP99Ms = txn.P50, txn.P99
	return c
}

// FillRun returns r with its measurements filled from the repeat's snapshot:
// Latency (per phase too, given windows), Counters, and TxnPerSec and
// RecordsPerSec from the transactions and records counters over r.DurationS
// (over the snapshot's span when DurationS is 0).
func FillRun(r result.BenchRun, s *Snapshot, windows []Window) result.BenchRun {
	r.Latency = s.LatencySummary(windows)
	r.Counters = s.CounterTotals()
	secs := r.DurationS
	if secs <= 0 {
		start, end := s.Span()
		secs = end.Sub(start).Seconds()
	}
	if secs > 0 {
		r.TxnPerSec = round3(float64(r.Counters[Transactions]) / secs)
		r.RecordsPerSec = round3(float64(r.Counters[Records]) / secs)
	}
	return r
}

// Repeat is one bench repeat's recording, for ModeFigures.
type Repeat struct {
	// Run names the repeat (mode, realization, batch, repeat, start).
	Run result.BenchRun
	// Snapshot is what the repeat recorded (workers' snapshots merged).
	Snapshot *Snapshot
	// Windows are the fault windows of the repeat, if any.
	Windows []Window
}

// ModeFigures are a bench run's figures per batch size: the percentile
// spectrum of metric with a line per mode (all repeats of the mode merged),
// then metric's p99 over time and the transactions' throughput over time with a
// line per mode, each from the mode's first repeat (offsets from its own
// start). The shaded fault windows are those of the first mode's first repeat
// that has any: repeats run the same schedule, so their offsets agree closely.
func ModeFigures(repeats []Repeat, metric string) result.BenchFigures {
	const step = time.Second
	byBatch := map[int][]Repeat{}
	for _, r := range repeats {
		byBatch[r.Run.Batch] = append(byBatch[r.Run.Batch], r)
	}
	out := result.BenchFigures{}
	for batch, reps := range byBatch {
		slices.SortStableFunc(reps, func(a, b Repeat) int { return cmp.Compare(a.Run.Repeat, b.Run.Repeat) })
		var labels []string
		merged := map[string]*Snapshot{}
		first := map[string]Repeat{}
		for _, r := range reps {
			l := r.Run.Label()
			if merged[l] == nil {
				labels = append(labels, l)
				merged[l] = NewSnapshot(r.Snapshot.Interval())
				first[l] = r
			}
			// Repeats of one bench share the recorder interval; if not, the
			// repeat is left out of the spectrum rather than failing the report.
			_ = merged[l].Merge(r.Snapshot)
		}
		spec := result.Figure{Title: metric + " percentile spectrum by mode (all repeats)", YLabel: "latency (ms)"}
		over := result.Figure{Title: metric + " p99 over time (first repeat of each mode)", YLabel: "latency (ms)"}
		thr := result.Figure{Title: "throughput over time (first repeat of each mode)", YLabel: "transactions per second"}
		for _, l := range labels {
			if h := merged[l].Histogram(metric); h.Count() > 0 {
				spec.Spectra = append(spec.Spectra, h.Spectrum(l))
			}
			f := first[l]
			origin := f.Run.Started
			if origin.IsZero() {
				origin, _ = f.Snapshot.Span()
			}
			if ts := f.Snapshot.LatencyOverTime(metric, origin, step, 99); len(ts.Points) > 0 {
				ts.Label = l
				over.Series = append(over.Series, ts)
			}
			if ts := f.Snapshot.RateOverTime(Transactions, origin, step); len(ts.Points) > 0 {
				ts.Label = l
				thr.Series = append(thr.Series, ts)
			}
			if len(over.Shades) == 0 {
				over.Shades = Shades(f.Windows, origin)
				thr.Shades = over.Shades
			}
		}
		for _, fig := range []result.Figure{spec, over, thr} {
			if len(fig.Spectra) > 0 || len(fig.Series) > 0 {
				out[batch] = append(out[batch], fig)
			}
		}
	}
	return out
}
