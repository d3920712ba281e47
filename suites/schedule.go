package suites

import (
	"context"
	"github.com/sharechaos/sharechaos/result"
	"sort"
	"sync"
)

// runPlans runs every cell plan in order, up to parallel at once. Cells
// have their own topics, group and transactional ids, so cells whose faults
// stay inside their own workers cannot disturb each other and share the
// cluster; a cell whose fault acts on the cluster (brokers, links) would
// disturb every other cell, so it waits for the others and runs alone.
func runPlans(ctx context.Context, parallel int, plans []cellPlan, run func(cellPlan)) {
	slots := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	for _, p := range plans {
		if ctx.Err() != nil {
			break
		}
		if p.scenario.Target() == "cluster" {
			wg.Wait()
			run(p)
			continue
		}
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
}

// sortedCells orders cells as the plans were: repeat, scenario, mode.
func sortedCells(cells []result.Cell) []result.Cell {
	out := append([]result.Cell(nil), cells...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seed < out[j].Seed })
	return out
}
