package bench

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"slices"
)

// CompareOptions says what CompareModes compares. Zero fields take defaults.
type CompareOptions struct {
	// Baseline is the mode the others are compared with; "explicit" if "".
	Baseline string
	// Metrics to compare; [txn_total_duration] if empty.
	Metrics []string
	// Percentiles to compare ("p50", "p90", "p99", "p99.9", "max", "mean");
	// [p50, p99] if empty.
	Percentiles []string
	// Alpha is the significance level; DefaultAlpha if 0.
	Alpha float64
}

func (o CompareOptions) withDefaults() CompareOptions {
	if o.Baseline == "" {
		o.Baseline = "explicit"
	}
	if len(o.Metrics) == 0 {
		o.Metrics = []string{TxnTotalDuration}
	}
	if len(o.Percentiles) == 0 {
		o.Percentiles = []string{"p50", "p99"}
	}
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	return o
}

// ModeLabel names a run's mode with its realization when it has one
// ("transactional/ledger"), so two realizations are never pooled.
func ModeLabel(r result.BenchRun) string { return r.Label() }

// CompareModes compares every mode with the baseline, per batch size, metric
// and percentile. The unit of the test is one repeat: each side's sample holds
// that repeat's percentile, one value per repeat, so n = the repeats per mode
// (percentiles of one long run are not independent samples; repeats are).
// Repeats that failed (Error set) or recorded nothing for a metric are left out
// and named in the warnings. Rows come in order: batch, metric, percentile,
// candidate in order of first appearance.
func CompareModes(runs []result.BenchRun, opt CompareOptions) []result.BenchComparison {
	o := opt.withDefaults()
	var batches []int
	var modes []string
	for _, r := range runs {
		if !slices.Contains(batches, r.Batch) {
			batches = append(batches, r.Batch)
		}
		if l := ModeLabel(r); l != o.Baseline && !slices.Contains(modes, l) {
			modes = append(modes, l)
		}
	}
	slices.Sort(batches)

	var out []result.BenchComparison
	for _, b := range batches {
		for _, m := range o.Metrics {
			for _, p := range o.Percentiles {
				base, baseSkipped := sampleOf(runs, o.Baseline, b, m, p)
				if len(base) == 0 && len(baseSkipped) == 0 {
					continue // baseline not run at this batch size
				}
				for _, mode := range modes {
					cand, candSkipped := sampleOf(runs, mode, b, m, p)
					if len(cand) == 0 && len(candSkipped) == 0 {
						continue
					}
					c := Compare(base, cand, o.Alpha)
					row := result.BenchComparison{
						Batch: b, Metric: m, Percentile: p,
						Baseline: o.Baseline, Candidate: mode,
						BaselineMs: base, CandidateMs: cand,
						BaselineMedianMs: round3(c.BaselineMedian), CandidateMedianMs: round3(c.CandidateMedian),
						Ratio: round3(c.Ratio), P: c.P, N1: c.N1, N2: c.N2, Alpha: c.Alpha,
						Significant: c.Significant, TooFewSamples: c.TooFewSamples,
						Words:    c.Words(mode, o.Baseline),
						Warnings: c.Warnings,
					}
					row.Warnings = append(row.Warnings, baseSkipped...)
					row.Warnings = append(row.Warnings, candSkipped...)
					out = append(out, row)
				}
			}
		}
	}
	return out
}

// sampleOf is one value per usable repeat of mode at batch, in run order, and
// why the others were left out.
func sampleOf(runs []result.BenchRun, mode string, batch int, metric, pct string) (values []float64, skipped []string) {
	values = []float64{}
	for _, r := range runs {
		if ModeLabel(r) != mode || r.Batch != batch {
			continue
		}
		if r.Error != "" {
			skipped = append(skipped, fmt.Sprintf("%s repeat %d left out: %s", mode, r.Repeat, r.Error))
			continue
		}
		p, ok := r.Latency[metric]
		if !ok || p.Count == 0 {
			skipped = append(skipped, fmt.Sprintf("%s repeat %d left out: no %s recorded", mode, r.Repeat, metric))
			continue
		}
		v, ok := PercentileValue(p, pct)
		if !ok {
			skipped = append(skipped, fmt.Sprintf("unknown percentile %q", pct))
			continue
		}
		values = append(values, v)
	}
	return values, skipped
}

// PercentileValue picks a field of p by name: "p50", "p90", "p99", "p99.9"
// (or "p999"), "max", "mean".
func PercentileValue(p result.Percentiles, name string) (float64, bool) {
	switch name {
	case "p50":
		return p.P50, true
	case "p90":
		return p.P90, true
	case "p99":
		return p.P99, true
	case "p99.9", "p999":
		return p.P999, true
	case "max":
		return p.Max, true
	case "mean":
		return p.Mean, true
	}
	return 0, false
}
