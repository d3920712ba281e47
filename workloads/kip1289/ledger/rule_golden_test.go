package ledger

import (
	"encoding/json"
	"github.com/sharechaos/sharechaos/internal/golden"
	"slices"
	"testing"
)

// ruleCase is one decision of the ledger rule, as data: committed entries
// applied in ledger order, then the batch's pre-check (Committed) and its
// validation at own (Conflicts). The Java worker's test (clients/java/worker)
// runs the same cases through its Book: one rule, two implementations.
type ruleCase struct {
	Name string `json:"name"`
	// Entries are the committed ledger entries: offset and input offsets
	// (records in/0/<offset>).
	Entries []ruleEntry `json:"entries"`
	Batch   []int64     `json:"batch"`
	Own     int64       `json:"own"`
	// Committed and Conflicts are what the Go Book answers.
	Committed []int64 `json:"committed"`
	Conflicts []int64 `json:"conflicts"`
}

type ruleEntry struct {
	Offset  int64   `json:"offset"`
	Records []int64 `json:"records"`
}

func ruleCases() []ruleCase {
	return []ruleCase{
		{Name: "empty ledger", Batch: []int64{1, 2}, Own: 0},
		{Name: "committed entry below ours holds a record", Entries: []ruleEntry{{0, []int64{2, 3}}}, Batch: []int64{1, 2}, Own: 1},
		{Name: "committed entry below ours holds every record", Entries: []ruleEntry{{3, []int64{1, 2}}}, Batch: []int64{1, 2}, Own: 7},
		{Name: "committed entry above ours cannot have won", Entries: []ruleEntry{{5, []int64{1, 2}}}, Batch: []int64{1, 2}, Own: 4},
		{Name: "disjoint records below ours", Entries: []ruleEntry{{0, []int64{7, 8}}}, Batch: []int64{1, 2}, Own: 1},
		{Name: "the first committed entry wins, a later one changes nothing", Entries: []ruleEntry{{2, []int64{1}}, {6, []int64{1, 2}}},
			Batch: []int64{1, 2}, Own: 4},
		{Name: "our own entry is no conflict of ours", Entries: []ruleEntry{{4, []int64{1, 2}}}, Batch: []int64{1, 2}, Own: 4},
	}
}

func toOffsets(ids []RecordID) []int64 {
	out := []int64{}
	for _, id := range ids {
		out = append(out, id.Offset)
	}
	slices.Sort(out)
	return out
}

// TestRuleGolden keeps testdata/rule_cases.golden.json equal to the cases
// with the Go Book's answers (-update rewrites it).
func TestRuleGolden(t *testing.T) {
	cases := ruleCases()
	for i, c := range cases {
		b := NewBook()
		for _, e := range c.Entries {
			if err := b.Apply(e.Offset, Entry{Worker: "w1.1", Seq: e.Offset, Records: in(e.Records...)}); err != nil {
				t.Fatal(err)
			}
		}
		cases[i].Committed = toOffsets(b.Committed(in(c.Batch...)))
		cases[i].Conflicts = toOffsets(b.Conflicts(in(c.Batch...), c.Own))
	}
	want, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	golden.Check(t, "rule_cases.golden.json", want, "go test ./workloads/kip1289/ledger -run TestRuleGolden")
}
