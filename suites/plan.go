package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// planFile names every cell a run planned, written before the first cell
// starts. result.json is rewritten after every cell, so an orchestrator killed
// with SIGKILL leaves a result.json without the cells that never finished; the
// plan is how a re-check names them instead of only saying "undecided".
const planFile = "plan.json"

// storedPlan is plan.json.
type storedPlan struct {
	Backend string        `json:"backend"`
	Cells   []plannedCell `json:"cells"`
}

// plannedCell is one planned cell, by the name and repeat its result will carry.
type plannedCell struct {
	Name        string `json:"name"`
	Scenario    string `json:"scenario"`
	Mode        string `json:"mode"`
	Realization string `json:"realization,omitempty"`
	Repeat      int    `json:"repeat"`
	Seed        int64  `json:"seed"`
}

// cell is the result stub of a planned cell: the fields its name is made of.
func (p cellPlan) cell(backend string) result.Cell {
	return result.Cell{Scenario: p.name(), Mode: string(p.mode), Backend: backend, Realization: p.realization,
		Repeat: p.repeat, Seed: p.seed, Anomalies: map[string]verdict.Found{}}
}

func writePlan(dir, backend string, plans []cellPlan) error {
	sp := storedPlan{Backend: backend, Cells: make([]plannedCell, len(plans))}
	for i, p := range plans {
		c := p.cell(backend)
		sp.Cells[i] = plannedCell{Name: c.Name(), Scenario: c.Scenario, Mode: c.Mode, Realization: c.Realization,
			Repeat: c.Repeat, Seed: c.Seed}
	}
	b, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, planFile), b); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}

// readPlan reads a run's plan; ok is false for runs from before plans were
// written.
func readPlan(dir string) (storedPlan, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, planFile))
	if errors.Is(err, os.ErrNotExist) {
		return storedPlan{}, false, nil
	}
	if err != nil {
		return storedPlan{}, false, fmt.Errorf("read plan: %w", err)
	}
	var sp storedPlan
	if err := json.Unmarshal(b, &sp); err != nil {
		return storedPlan{}, false, fmt.Errorf("read plan: %s: %w", filepath.Join(dir, planFile), err)
	}
	return sp, true, nil
}

// unfinishedReason is the UNKNOWN reason of a planned cell with no result.
const unfinishedReason = "never finished: the run ended (killed or interrupted) before this cell had a result"

// addUnfinished appends an UNKNOWN cell for every planned cell res has no
// result for, and returns their names in plan order. A run with unfinished
// cells is interrupted, whatever result.json says.
func addUnfinished(res result.Result, sp storedPlan) (result.Result, []string) {
	type key struct {
		name   string
		repeat int
	}
	have := make(map[key]bool, len(res.Runs))
	for _, c := range res.Runs {
		have[key{c.Name(), c.Repeat}] = true
	}
	var names []string
	for _, pc := range sp.Cells {
		if have[key{pc.Name, pc.Repeat}] {
			continue
		}
		res.Runs = append(res.Runs, result.Cell{Scenario: pc.Scenario, Mode: pc.Mode, Backend: sp.Backend,
			Realization: pc.Realization, Repeat: pc.Repeat, Seed: pc.Seed, Verdict: verdict.Unknown,
			Reason: unfinishedReason, Anomalies: map[string]verdict.Found{}})
		names = append(names, fmt.Sprintf("%s (repeat %d)", pc.Name, pc.Repeat))
	}
	if len(names) > 0 {
		res.Interrupted = true
		res.Runs = sortedCells(res.Runs)
	}
	return res, names
}
