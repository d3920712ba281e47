package suites

import (
	"bytes"
	"github.com/sharechaos/sharechaos/result"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestPlainProgressNamesPhases: off a terminal, every phase change is a
// line, and so is each cell's verdict.
func TestPlainProgressNamesPhases(t *testing.T) {
	var b bytes.Buffer
	var o Options
	o.Progress = &b
	pr := newProgress(o, 1)
	s, _ := scenarios.Lookup("broker-kill")
	p := cellPlan{scenario: s, mode: ctp.Explicit, repeat: 1}
	pr.setPhase(p, PhaseSetup)
	pr.setPhase(p, PhaseSeeding)
	pr.setPhase(p, PhaseLoad)
	pr.show(p, 10, 100)
	pr.faultEvent(p, history.Event{F: history.FFaultFired})
	pr.faultEvent(p, history.Event{F: history.FHeal})
	pr.show(p, 100, 100)
	pr.setPhase(p, PhaseCheck)
	pr.end(p, result.Cell{Scenario: "broker-kill", Mode: "explicit", Backend: "docker", Verdict: verdict.Pass})
	pr.close()
	out := b.String()
	for _, want := range []string{"broker-kill/explicit: setup", ": seeding", ": load", "10 of 100 input records done (load)", ": fault", ": heal", ": drain", ": check", "PASS          broker-kill/explicit/docker"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
}
