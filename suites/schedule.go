package suites

import (
	"context"
	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/suites/cell"
	"sync"
)

// placement is how a cell may run beside others.
type placement int

const (
	// besideOthers: the cell's fault stays inside its own workers, or acts
	// only on its own transactional ids (faults.ScopeCell): it runs in the
	// pool, up to --parallel at once.
	besideOthers placement = iota
	// alone: a cluster fault aimed at this cell would disturb every other
	// cell; it waits for the others and runs by itself.
	alone
	// withItsRow: a shared cluster fault (faults.ScopeShared); the cells of
	// its row (same scenario and repeat, every mode) run together, alone
	// on the cluster, under one injection.
	withItsRow
)

func placementOf(p cell.Plan) placement {
	cf := p.Scenario.Cluster
	switch {
	case cf == nil || cf.Scope == faults.ScopeCell:
		return besideOthers
	case cf.Shared():
		return withItsRow
	}
	return alone
}

// runPlans runs every cell plan in order. Cells have their own topics,
// group and transactional ids, so cells whose faults stay inside their own
// workers cannot disturb each other and share the cluster, up to parallel
// at once; a cell whose fault acts on the cluster runs alone, and a shared
// cluster fault runs once for all the cells of its row together.
//
// A row's cells (an alone cell is a row of one) start as soon as the row
// before has healed and drained: their setup (topics, seeding, Align)
// overlaps the earlier cells' teardown and read-back, while the row's load
// (and so its fault) waits for those cells to finish and for settle (their
// background deletions), so a fault never meets an earlier cell's read-back
// or deletion. share makes the one injection of a row.
func runPlans(ctx context.Context, parallel int, plans []cell.Plan, share func(rowOf []cell.Plan) *cell.Share, settle func(), run func(cell.Plan)) {
	plans = poolFirst(plans)
	slots := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	// finished is closed once every cluster-fault cell started so far has
	// finished (each row's closes after its own cells and the rows' before:
	// a row of N/A cells finishes at once, the one before may still read
	// back); healed is closed once the last row healed and drained.
	var finished, healed <-chan struct{}
	waitFinished := func() {
		if finished != nil {
			<-finished
		}
	}
	for i := 0; i < len(plans); i++ {
		p := plans[i]
		if ctx.Err() != nil {
			break
		}
		if placement := placementOf(p); placement != besideOthers {
			// An alone cell is a row of one: the same injection, the same
			// overlap of its setup with the teardown before.
			row := []cell.Plan{p}
			for placement == withItsRow && i+1 < len(plans) && plans[i+1].Scenario.Name == p.Scenario.Name && plans[i+1].Repeat == p.Repeat {
				i++
				row = append(row, plans[i])
			}
			wg.Wait()
			if healed != nil {
				<-healed
			}
			before := finished
			f := share(row)
			f.Gate = func() {
				if before != nil {
					<-before
				}
				settle()
			}
			rowWG := &sync.WaitGroup{}
			for _, q := range row {
				q.Share = f
				rowWG.Add(1)
				go func() {
					defer rowWG.Done()
					run(q)
				}()
			}
			done := make(chan struct{})
			go func() {
				rowWG.Wait()
				if before != nil {
					<-before
				}
				close(done)
			}()
			finished, healed = done, f.HealedAndDrained()
			continue
		}
		waitFinished()
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if ctx.Err() == nil {
				run(p)
			}
		}()
	}
	wg.Wait()
	waitFinished()
}

// poolFirst orders the plans that run beside others before those that run
// alone or with their row, each group in plan order: the pool then fills
// its slots with every such cell at once instead of draining before each
// cluster fault. Only the order of running changes; seeds and names are
// the plans'.
func poolFirst(plans []cell.Plan) []cell.Plan {
	out := make([]cell.Plan, 0, len(plans))
	for _, p := range plans {
		if placementOf(p) == besideOthers {
			out = append(out, p)
		}
	}
	for _, p := range plans {
		if placementOf(p) != besideOthers {
			out = append(out, p)
		}
	}
	return out
}
