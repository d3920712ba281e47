package suites

import (
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/suites/cell"
)

// splitOwnCluster separates the rows whose fault leaves the brokers on
// another release (faults.Mechanism.ChangesRelease: rolling-upgrade) from
// the other cells: a cell run after such a row would run on a release its
// name does not say. Each such row (its modes, one repeat) runs on a
// cluster of its own, after the others. A row the cluster cannot run (its
// Needs give an N/A reason) stays with the others: it is N/A at once and
// changes nothing.
func splitOwnCluster(plans []cell.Plan, c cluster.Cluster) (shared []cell.Plan, own [][]cell.Plan) {
	for _, p := range plans {
		cf := p.Scenario.Cluster
		if cf == nil || !cf.ChangesRelease || (cf.Needs != nil && cf.Needs(c) != "") {
			shared = append(shared, p)
			continue
		}
		if n := len(own); n > 0 && own[n-1][0].Scenario.Name == p.Scenario.Name && own[n-1][0].Repeat == p.Repeat {
			own[n-1] = append(own[n-1], p)
			continue
		}
		own = append(own, []cell.Plan{p})
	}
	return shared, own
}

// ownName is the run id of a row's own cluster (own "": the release's).
func ownName(runID, own string) string {
	if own == "" {
		return runID
	}
	return runID + "-" + own
}

// ownDir is where a row's own cluster keeps its broker logs.
func ownDir(dir, own string) string {
	if own == "" {
		return dir
	}
	return filepath.Join(dir, "cluster-"+own)
}
