package reports

import (
	"bufio"
	"bytes"
	"github.com/sharechaos/sharechaos/result"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

func TestFlakeTableMarksDisagreeingRepeats(t *testing.T) {
	runs := []result.Cell{
		{Scenario: "steady", Mode: "explicit", Backend: "embedded", Repeat: 1, Verdict: verdict.Pass},
		{Scenario: "broker-kill", Mode: "explicit", Backend: "embedded", Repeat: 1, Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "explicit", Backend: "embedded", Repeat: 2, Verdict: verdict.Pass},
		{Scenario: "broker-kill", Mode: "explicit", Backend: "embedded", Repeat: 2, Verdict: verdict.Unknown},
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeFlakeTable(w, runs)
	_ = w.Flush()
	md := b.String()
	if !strings.Contains(md, "1 of 2 cells flaky over 2 repeats") ||
		!strings.Contains(md, "| broker-kill/explicit/embedded | PASS | UNKNOWN | **flaky** |") ||
		!strings.Contains(md, "| steady/explicit/embedded | PASS | PASS | |") {
		t.Errorf("flake table:\n%s", md)
	}
	var tb bytes.Buffer
	WriteFlakeText(&tb, runs)
	if !strings.Contains(tb.String(), "flaky") {
		t.Errorf("terminal table without a flaky mark:\n%s", tb.String())
	}
	// One repeat: no table.
	b.Reset()
	writeFlakeTable(w, runs[:2])
	_ = w.Flush()
	if b.Len() != 0 {
		t.Errorf("a table for one repeat:\n%s", b.String())
	}
}
