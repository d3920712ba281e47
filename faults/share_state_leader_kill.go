package faults

import (
	"context"
	"fmt"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// shareStateLeaderKill SIGKILLs the leader of the __share_group_state
// partition that holds one input partition's share-partition state (the
// share coordinator of that key), and restarts it. So that this tests the
// share coordinator's failover and not an input leader's (which releases
// acquisitions and is data-leader-kill's case), the input partitions that
// broker leads are moved off it first, when another broker can take them.
func shareStateLeaderKill(ctx context.Context, env Env) error {
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	p := shareStateTarget(env)
	key, err := a.shareStateKey(ctx, env.Topology.Group, env.Topology.InputTopic, p)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	node, err := env.Cluster.(cluster.Roles).Coordinator(cctx, cluster.CoordShareState, key)
	cancel()
	if err != nil {
		return fmt.Errorf("find share coordinator of %s: %w", key, err)
	}
	// Every cell the injection serves keeps its input leaders off the
	// killed broker (a shared injection: Align put their share-state there).
	var inputs []role
	for i, t := range env.all() {
		for q := range t.Partitions {
			what := fmt.Sprintf("input/%d", q)
			if i > 0 {
				what = fmt.Sprintf("%s input/%d", t.Prefix, q)
			}
			inputs = append(inputs, role{what: what, topic: t.InputTopic, partition: q})
		}
	}
	moved, ended, err := moveOff(ctx, env, a, node, inputs, "input leaders moved off the share coordinator's broker", nil)
	if ended || err != nil {
		return err
	}
	return killAndRestart(ctx, env, killPlan{point: "under-load", node: node,
		attrs: map[string]string{"share_state_of": fmt.Sprintf("%s/%d", env.Topology.InputTopic, p), "key": key,
			"moved_off": joinMoved(moved)}})
}
