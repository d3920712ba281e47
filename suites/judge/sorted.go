package judge

import (
	"sort"

	"github.com/sharechaos/sharechaos/result"
)

// SortedCells orders cells as the plans were: repeat, scenario, mode.
func SortedCells(cells []result.Cell) []result.Cell {
	out := append([]result.Cell(nil), cells...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seed < out[j].Seed })
	return out
}
