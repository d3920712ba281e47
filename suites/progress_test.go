package suites

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/cell"
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
	p := cell.Plan{Scenario: s, Mode: ctp.Explicit, Repeat: 1}
	records := func(done int64) {
		pr.Progress(p, done, 100, func() string { return fmt.Sprintf("%d of 100 input records done", done) })
	}
	pr.Phase(p, cell.PhaseSetup)
	pr.Phase(p, cell.PhaseSeeding)
	pr.Phase(p, cell.PhaseLoad)
	records(10)
	pr.Phase(p, cell.PhaseFault)
	pr.Phase(p, cell.PhaseHeal)
	pr.Phase(p, cell.PhaseDrain)
	records(100)
	pr.Phase(p, cell.PhaseCheck)
	pr.end(p, result.Cell{Scenario: "broker-kill", Mode: "explicit", Backend: "docker", Verdict: verdict.Pass})
	pr.close()
	out := b.String()
	for _, want := range []string{"broker-kill/explicit: setup", ": seeding", ": load", "10 of 100 input records done (load)", ": fault", ": heal", ": drain", ": check", "PASS          broker-kill/explicit/docker"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
}
