package reports

import (
	"bufio"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"strings"
)

// phaseOrder is every phase name, for the summary's columns.
var phaseOrder = []string{result.PhaseTopicSetup, result.PhaseSeeding, result.PhaseWorkersStart, result.PhaseLoad, result.PhaseFault, result.PhaseHeal,
	result.PhaseDrain, result.PhaseTeardown, result.PhaseReadBack, result.PhaseCheck}

// writePhaseTable writes the cells' phase times and the run's wall time next
// to the serial sum of its unavoidable waits.
func writePhaseTable(w *bufio.Writer, r result.Result) {
	has := false
	for _, c := range r.Runs {
		has = has || len(c.Phases) > 0
	}
	if !has {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("## Where the time went\n\n")
	p("%s.\n\n", TimeLine(r))
	p("| cell | repeat | %s | waits | total |\n|---|---|%s---|---|\n", strings.Join(phaseOrder, " | "),
		strings.Repeat("---|", len(phaseOrder)))
	for _, c := range r.Runs {
		if len(c.Phases) == 0 {
			continue
		}
		by := map[string]float64{}
		for _, ph := range c.Phases {
			by[ph.Name] += ph.DurationS
		}
		p("| %s | %d |", md(c.Name()), c.Repeat)
		for _, n := range phaseOrder {
			if v, ok := by[n]; ok {
				p(" %.1f |", v)
			} else {
				p(" |")
			}
		}
		p(" %.1f | %.1f |\n", c.WaitsS, c.DurationS)
	}
	p("\n")
}

// TimeLine is the run's wall time next to the serial sum of its cells and of
// their unavoidable waits; "" for a run without phase times.
func TimeLine(r result.Result) string {
	var waits, cells float64
	has := false
	for _, c := range r.Runs {
		waits += c.WaitsS
		cells += c.DurationS
		has = has || len(c.Phases) > 0
	}
	if !has {
		return ""
	}
	return fmt.Sprintf("wall time %s (cluster start %s); the cells' serial sum %s, of which unavoidable waits "+
		"(lock and transaction timeouts, stalls, restarts, faults held) %s",
		seconds(r.DurationS), seconds(r.ClusterStartS), seconds(cells), seconds(waits))
}
