package suites

import (
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/judge"
)

// cell is the result stub of a planned cell: the fields its name is made of.
func (p cellPlan) cell(backend string) result.Cell {
	return result.Cell{Scenario: p.name(), Mode: string(p.mode), Backend: backend, Realization: p.realization,
		Repeat: p.repeat, Seed: p.seed, Anomalies: map[string]verdict.Found{}}
}

func writePlan(dir, backend string, plans []cellPlan) error {
	p := judge.Plan{Backend: backend, Cells: make([]judge.PlannedCell, len(plans))}
	for i, pl := range plans {
		c := pl.cell(backend)
		p.Cells[i] = judge.PlannedCell{Name: c.Name(), Scenario: c.Scenario, Mode: c.Mode, Realization: c.Realization,
			Repeat: c.Repeat, Seed: c.Seed}
	}
	return judge.WritePlan(dir, p)
}
