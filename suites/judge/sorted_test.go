package judge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/result"
)

// TestSortedCellsNeverNil: a run with no cell yet writes "runs": [], which
// a re-check of a killed run reads (it refuses a result.json without a runs
// list); cells come in plan order.
func TestSortedCellsNeverNil(t *testing.T) {
	b, _ := json.Marshal(result.Result{Runs: SortedCells(nil)})
	if !strings.Contains(string(b), `"runs":[]`) {
		t.Errorf("no cells: %s, want \"runs\":[]", b)
	}
	got := SortedCells([]result.Cell{{Seed: 3}, {Seed: 1}, {Seed: 2}})
	if got[0].Seed != 1 || got[2].Seed != 3 {
		t.Errorf("order %v", got)
	}
}
