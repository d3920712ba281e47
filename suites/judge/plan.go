package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
)

// planFile names every cell a run planned, written before the first cell
// starts. result.json is rewritten after every cell, so an orchestrator killed
// with SIGKILL leaves a result.json without the cells that never finished; the
// plan is how a re-check names them instead of only saying "undecided".
const planFile = "plan.json"

// Plan is plan.json.
type Plan struct {
	Backend string        `json:"backend"`
	Cells   []PlannedCell `json:"cells"`
}

// PlannedCell is one planned cell, by the name and repeat its result will carry.
type PlannedCell struct {
	Name        string `json:"name"`
	Scenario    string `json:"scenario"`
	Mode        string `json:"mode"`
	Realization string `json:"realization,omitempty"`
	// KafkaVersion is the release the cell runs on (runs that name
	// versions; absent in the others' plans).
	KafkaVersion string `json:"kafka_version,omitempty"`
	// Client is the client its workers run on (absent in plans from
	// before clients were a dimension: the default).
	Client string `json:"client,omitempty"`
	Repeat int    `json:"repeat"`
	Seed   int64  `json:"seed"`
}

// WritePlan writes plan.json: every cell the run planned, before the first
// starts.
func WritePlan(dir string, p Plan) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, planFile), b); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}

// ReadPlan reads a run's plan; ok is false for runs from before plans were
// written.
func ReadPlan(dir string) (Plan, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, planFile))
	if errors.Is(err, os.ErrNotExist) {
		return Plan{}, false, nil
	}
	if err != nil {
		return Plan{}, false, fmt.Errorf("read plan: %w", err)
	}
	var sp Plan
	if err := json.Unmarshal(b, &sp); err != nil {
		return Plan{}, false, fmt.Errorf("read plan: %s: %w", filepath.Join(dir, planFile), err)
	}
	return sp, true, nil
}

// unfinishedReason is the UNKNOWN reason of a planned cell with no result.
const unfinishedReason = "never finished: the run ended (killed or interrupted) before this cell had a result"

// AddUnfinished appends an UNKNOWN cell for every planned cell res has no
// result for, and returns their names in plan order. A run with unfinished
// cells is interrupted, whatever result.json says.
func AddUnfinished(res result.Result, sp Plan) (result.Result, []string) {
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
			Realization: pc.Realization, KafkaVersion: pc.KafkaVersion, Client: pc.Client, Repeat: pc.Repeat, Seed: pc.Seed, Verdict: verdict.Unknown,
			Reason: unfinishedReason, Anomalies: map[string]verdict.Found{}})
		names = append(names, fmt.Sprintf("%s (repeat %d)", pc.Name, pc.Repeat))
	}
	if len(names) > 0 {
		res.Interrupted = true
		res.Runs = SortedCells(res.Runs)
	}
	return res, names
}
