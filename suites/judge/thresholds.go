package judge

import (
	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"maps"
	"slices"
)

// ThresholdCounters are the counts a chaos run's thresholds can bound.
func ThresholdCounters() []string { return slices.Sorted(maps.Keys(cellCounters(result.Cell{}))) }

// cellCounters are the counts a threshold can bound in a chaos cell.
func cellCounters(c result.Cell) map[string]int64 {
	return map[string]int64{
		"duplicated": int64(c.Duplicated), "lost": int64(c.Lost), "unseen": int64(c.Unseen),
		"extra_outputs": int64(c.ExtraOutputs), "processed": int64(c.Processed),
	}
}

// Thresholds judges every threshold on every cell it matches (tags:
// scenario, mode, backend, realization) from the cell's latency summaries and
// counts. A cell without data for a threshold's metric fails it, except N/A
// cells and cells that never ran, which are not judged.
func Thresholds(ts bench.Thresholds, cells []result.Cell) []result.ThresholdResult {
	var out []result.ThresholdResult
	for _, c := range cells {
		if c.Verdict == verdict.NA || c.Verdict == verdict.HarnessError || c.Input == 0 {
			continue
		}
		tags := map[string]string{"scenario": c.Scenario, "mode": c.Mode, "backend": c.Backend, "realization": c.Realization}
		counters := cellCounters(c)
		for _, t := range ts {
			if !t.Matches(tags) {
				continue
			}
			r := t.EvaluateSummary(c.Latency, counters)
			r.Scope = c.ID()
			out = append(out, r)
		}
	}
	return out
}
