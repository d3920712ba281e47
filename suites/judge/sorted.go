package judge

import (
	"sort"

	"github.com/sharechaos/sharechaos/result"
)

// SortedCells orders cells as the plans were: repeat, scenario, mode. It
// never returns nil: result.json's "runs" is a list even before the first
// cell ended (a run killed then is re-checked from it and plan.json).
func SortedCells(cells []result.Cell) []result.Cell {
	out := append(make([]result.Cell, 0, len(cells)), cells...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seed < out[j].Seed })
	return out
}
