package suites

import (
	"context"
	"slices"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/suites/cell"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/judge"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// planCells expands scenarios x modes x clients x repeats on one cluster
// of the release version ("" when the run names none), deciding the
// transactional realization once for it. Each cell's seed is the run's plus
// its index among the cells of its client within the release (Plan.Draw),
// so a cell replays alone with its own seed and each client's and release's
// cell draws what the others' draw (the same crash points). A client's
// cells sit beside the other clients' of the same scenario and mode, so the
// cells compared run close in time.
func planCells(ctx context.Context, o Options, c cluster.Cluster, version string) ([]cell.Plan, error) {
	scen, err := o.scenarios()
	if err != nil {
		return nil, err
	}
	txns, err := harness.DecideRealizations(ctx, o.Common, c)
	if err != nil {
		return nil, err
	}
	var plans []cell.Plan
	draw := 0
	add := func(p cell.Plan) {
		for _, client := range o.Clients {
			p.Index, p.Draw, p.Seed, p.Version, p.Client = len(plans), draw, o.Seed+int64(draw), version, client
			plans = append(plans, p)
		}
		draw++
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
// first starts. In a run over releases, a release's cells are planned on
// its own cluster; those of the releases still to come (later) are named
// ahead as the last planned release's cells on them, and rewritten when
// their cluster plans them.
func writePlan(dir, backend string, plans []cell.Plan, later []string) error {
	all := slices.Clone(plans)
	for _, v := range later {
		for _, pl := range lastRelease(plans) {
			pl.Version = v
			all = append(all, pl)
		}
	}
	p := judge.Plan{Backend: backend, Cells: make([]judge.PlannedCell, len(all))}
	for i, pl := range all {
		c := pl.Stub(backend)
		p.Cells[i] = judge.PlannedCell{Name: c.Name(), Scenario: c.Scenario, Mode: c.Mode, Realization: c.Realization,
			KafkaVersion: c.KafkaVersion, Client: c.Client, Repeat: c.Repeat, Seed: c.Seed}
	}
	return judge.WritePlan(dir, p)
}

// lastRelease is the cells of the last release in plans.
func lastRelease(plans []cell.Plan) []cell.Plan {
	i := len(plans)
	for i > 0 && plans[i-1].Version == plans[len(plans)-1].Version {
		i--
	}
	return plans[i:]
}
