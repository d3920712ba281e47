package suites

import (
	"context"
	"testing"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/cell"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

type plainCluster struct{}

func (plainCluster) Name() string                { return "fake" }
func (plainCluster) Nodes() []cluster.NodeID     { return []cluster.NodeID{1, 2, 3} }
func (plainCluster) Bootstrap() []string         { return nil }
func (plainCluster) Close(context.Context) error { return nil }

// TestSplitOwnCluster: the rows that change the release go apart, one per
// scenario and repeat with all their modes, unless the cluster cannot run
// them (then they stay, to be N/A at once).
func TestSplitOwnCluster(t *testing.T) {
	changes := scenarios.Scenario{Name: "roll", Cluster: &scenarios.ClusterFault{Mechanism: faults.Mechanism{ChangesRelease: true}}}
	cannot := scenarios.Scenario{Name: "roll-na", Cluster: &scenarios.ClusterFault{Mechanism: faults.Mechanism{ChangesRelease: true,
		Needs: func(cluster.Cluster) string { return "no" }}}}
	steady := scenarios.Scenario{Name: "steady"}
	var plans []cell.Plan
	for rep := 1; rep <= 2; rep++ {
		for _, s := range []scenarios.Scenario{steady, changes, cannot} {
			for _, m := range []ctp.AckMode{ctp.Explicit, ctp.Implicit} {
				plans = append(plans, cell.Plan{Scenario: s, Mode: m, Repeat: rep})
			}
		}
	}
	shared, own := splitOwnCluster(plans, plainCluster{})
	if len(shared) != 8 || len(own) != 2 {
		t.Fatalf("shared %d, own rows %d; want 8 and 2", len(shared), len(own))
	}
	for i, row := range own {
		if len(row) != 2 || row[0].Scenario.Name != "roll" || row[0].Repeat != i+1 || row[1].Repeat != i+1 {
			t.Errorf("own row %d: %+v", i, row)
		}
	}
}
