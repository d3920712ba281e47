package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
)

// TestSummarySoakTimeline: a soak cell's timeline is a table in
// summary.md, its fault marked where it acted; a cell without one adds no
// section.
func TestSummarySoakTimeline(t *testing.T) {
	cell := result.Cell{Scenario: "broker-kill", Mode: "explicit", Backend: "docker", Repeat: 1, Verdict: verdict.Pass,
		Fault: result.Fault{Name: "broker-kill", Fired: true},
		SoakTimeline: []result.SoakBucket{
			{FromS: 0, ToS: 10, Seeded: 500, Committed: 480, Commits: 60, CommitP50Ms: 12, CommitP99Ms: 40, CommitMaxMs: 55},
			{FromS: 10, ToS: 20, Seeded: 500, Committed: 300, Commits: 30, CommitP50Ms: 90, CommitP99Ms: 4000, CommitMaxMs: 5100, Fault: true},
		}}
	var buf bytes.Buffer
	if err := WriteSummary(&buf, result.Result{Verdict: verdict.Pass, Runs: []result.Cell{cell}}); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, want := range []string{"## Soak timelines", "### broker-kill/explicit/docker (repeat 1)",
		"| 0 | 10 | 500 | 480 | 60 | 12.0 / 40.0 / 55.0 |  |", "| 10 | 20 | 500 | 300 | 30 | 90.0 / 4000.0 / 5100.0 | broker-kill |"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, s)
		}
	}
	buf.Reset()
	cell.SoakTimeline = nil
	_ = WriteSummary(&buf, result.Result{Verdict: verdict.Pass, Runs: []result.Cell{cell}})
	if strings.Contains(buf.String(), "Soak timelines") {
		t.Error("a run without a soak has a soak section")
	}
}
