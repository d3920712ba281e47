package hunt

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"github.com/sharechaos/sharechaos/internal/verdict"
)

// Coverage is what a hunt tried: how often each cluster fault, worker arm,
// shape and cell dimension came up, and the cells that judged nothing.
type Coverage struct {
	Trials int `json:"trials"`
	Cells  int `json:"cells"`
	// Verdicts counts the cells by verdict.
	Verdicts map[verdict.Verdict]int `json:"verdicts"`
	// Faults counts, per cluster fault, the trials that drew it and those
	// whose schedule fired.
	Faults map[string]Tried `json:"faults"`
	// Arms counts the worker arms drawn, as action@point.
	Arms map[string]int `json:"arms"`
	// Shapes counts each value of each shape field ("workers=2").
	Shapes map[string]int `json:"shapes"`
	// Dimensions counts the cells per mode, realization, client, release.
	Dimensions map[string]int `json:"dimensions"`
	// Unjudged are the UNKNOWN and HARNESS-ERROR cells: not findings.
	Unjudged []Unjudged `json:"unjudged,omitempty"`
}

// Tried is how often a cluster fault was drawn, and fired.
type Tried struct {
	Drawn int `json:"drawn"`
	Fired int `json:"fired"`
}

// Unjudged is a cell that judged nothing, with why.
type Unjudged struct {
	Trial   string          `json:"trial"`
	Cell    string          `json:"cell"`
	Verdict verdict.Verdict `json:"verdict"`
	Reason  string          `json:"reason"`
}

func coverageOf(r *Report) Coverage {
	c := Coverage{Verdicts: map[verdict.Verdict]int{}, Faults: map[string]Tried{}, Arms: map[string]int{},
		Shapes: map[string]int{}, Dimensions: map[string]int{}}
	for _, m := range r.Menu {
		c.Faults[m] = Tried{}
	}
	for m := range r.Dropped {
		c.Faults[m] = Tried{}
	}
	for _, o := range r.Trials {
		c.Trials++
		t := o.Trial
		fired := slices.ContainsFunc(o.Cells, func(c CellOutcome) bool { return c.Fired })
		for _, m := range t.Mechanisms() {
			tr := c.Faults[m]
			tr.Drawn++
			if fired {
				tr.Fired++
			}
			c.Faults[m] = tr
		}
		if w := t.Worker; w != nil {
			c.Arms[fmt.Sprintf("%s@%s", w.Action, w.Point)]++
		}
		for _, s := range []string{fmt.Sprintf("records=%d", t.Records), fmt.Sprintf("workers=%d", t.Workers),
			fmt.Sprintf("batch=%d", t.Batch), fmt.Sprintf("partitions=%d", t.Partitions)} {
			c.Shapes[s]++
		}
		for _, cell := range o.Cells {
			c.Cells++
			c.Verdicts[cell.Verdict]++
			c.Dimensions[cell.Dimensions.String()]++
			if cell.Verdict == verdict.Unknown || cell.Verdict == verdict.HarnessError {
				c.Unjudged = append(c.Unjudged, Unjudged{Trial: t.Name, Cell: cell.Dimensions.String(), Verdict: cell.Verdict, Reason: cell.Reason})
			}
		}
	}
	return c
}

// write writes hunt.json and hunt.md into the hunt's directory.
func write(r Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(r.Dir, "hunt.json"), append(b, '\n')); err != nil {
		return fmt.Errorf("write hunt.json: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(r.Dir, "hunt.md"), []byte(Markdown(r))); err != nil {
		return fmt.Errorf("write hunt.md: %w", err)
	}
	return nil
}

// Markdown is the hunt's report for people.
func Markdown(r Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	cov := r.Coverage
	p("# sharechaos hunt")
	p("")
	p("Seed %d, budget %.0fs, backend %s: %d trials, %d cells in %.0fs%s.", r.Seed, r.BudgetS, r.Backend, cov.Trials, cov.Cells, r.TookS, map[bool]string{true: " (interrupted)"}[r.Interrupted])
	if len(r.Env) > 0 {
		p("Environment: `%s`.", strings.Join(r.Env, " "))
	}
	p("")
	p("## Findings")
	p("")
	if len(r.Findings) == 0 {
		p("None: no cell was ANOMALY.")
	}
	for i, f := range r.Findings {
		p("### %d. %s in %s", i+1, strings.Join(f.Anomalies, ", "), f.Cell.Dimensions)
		p("")
		p("- found in %s: %s", f.Trial.Name, f.Trial)
		p("- the cell: %s", f.Cell.Reason)
		if f.Cell.Dir != "" {
			p("- its histories: %s", f.Cell.Dir)
		}
		if f.SameAs > 0 {
			p("- as finding %d (not shrunk again)", f.SameAs)
		}
		if s := f.Shrink; s != nil {
			p("- shrunk to: %s", s.Final)
			p("- faults %d → %d, records %d → %d, failing cell %.0fs → %.0fs; fails in %d of %d replays; %s",
				s.Before.Faults, s.After.Faults, s.Before.Records, s.After.Records, s.Before.Seconds, s.After.Seconds, s.Failed, s.Replays, s.Stopped)
			p("- scenario file: %s", f.File)
			p("- replay: `%s`", f.Command)
			p("")
			p("| step | candidate | failed | judged nothing | kept | took |")
			p("|---:|---|---:|---:|---|---:|")
			for j, st := range s.Steps {
				p("| %d | %s | %d of %d | %d | %v | %.0fs |", j+1, st.What, st.Failed, st.Replays, st.Unjudged, st.Kept, st.TookS)
			}
		}
		p("")
	}
	p("## What was tried")
	p("")
	p("Verdicts: %s.", countsLine(cov.Verdicts))
	p("")
	p("| cluster fault | drawn | schedule fired | off the menu |")
	p("|---|---:|---:|---|")
	for _, m := range slices.Sorted(maps.Keys(cov.Faults)) {
		t := cov.Faults[m]
		p("| %s | %d | %d | %s |", m, t.Drawn, t.Fired, r.Dropped[m])
	}
	p("")
	p("Worker arms: %s.", countsLine(cov.Arms))
	p("")
	p("Shapes: %s.", countsLine(cov.Shapes))
	p("")
	p("Cells: %s.", countsLine(cov.Dimensions))
	p("")
	if len(cov.Unjudged) > 0 {
		p("## Cells that judged nothing (not findings)")
		p("")
		for _, u := range cov.Unjudged {
			p("- %s %s: %s: %s", u.Trial, u.Cell, u.Verdict, u.Reason)
		}
		p("")
	}
	return b.String()
}

func countsLine[K ~string](m map[K]int) string {
	if len(m) == 0 {
		return "none"
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(out, ", ")
}
