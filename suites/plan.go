package suites

import (
	"context"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/suites/cell"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/judge"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// planCells expands scenarios x modes x repeats, deciding the transactional
// realization once for the run. Each cell's seed is the run's plus its
// index, so a cell replays alone with its own seed.
func planCells(ctx context.Context, o Options, c cluster.Cluster) ([]cell.Plan, error) {
	scen, err := o.scenarios()
	if err != nil {
		return nil, err
	}
	txns, err := harness.DecideRealizations(ctx, o.Common, c)
	if err != nil {
		return nil, err
	}
	var plans []cell.Plan
	add := func(p cell.Plan) {
		p.Index, p.Seed = len(plans), o.Seed+int64(len(plans))
		plans = append(plans, p)
	}
	for rep := 1; rep <= o.Repeats; rep++ {
		for _, s := range scen {
			for _, m := range o.Modes {
				if m != ctp.Transactional {
					add(cell.Plan{Scenario: s, Mode: m, Repeat: rep, Consumer: o.Consumer})
					continue
				}
				for _, txn := range txns {
					add(cell.Plan{Scenario: s, Mode: txn.Mode, Realization: txn.Realization, Repeat: rep,
						FallbackNote: txn.Warning, Consumer: cellConsumer(txn, o.Consumer)})
				}
			}
		}
	}
	return plans, nil
}

// cellConsumer is a cell's share consumer: a transactional cell's is its
// realization's (kip1289.Realizations), a fallback to explicit takes
// --consumer.
func cellConsumer(txn harness.TxnDecision, asked string) string {
	if r, ok := kip1289.LookupRealization(txn.Realization); ok && txn.Mode == ctp.Transactional {
		return r.Consumer
	}
	return asked
}

// writePlan writes plan.json (judge.Plan): every planned cell, before the
// first starts.
func writePlan(dir, backend string, plans []cell.Plan) error {
	p := judge.Plan{Backend: backend, Cells: make([]judge.PlannedCell, len(plans))}
	for i, pl := range plans {
		c := pl.Stub(backend)
		p.Cells[i] = judge.PlannedCell{Name: c.Name(), Scenario: c.Scenario, Mode: c.Mode, Realization: c.Realization,
			Repeat: c.Repeat, Seed: c.Seed}
	}
	return judge.WritePlan(dir, p)
}
