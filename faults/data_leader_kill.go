package faults

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// dataLeaderKill SIGKILLs the leader of a random input or output partition
// and restarts it. An input leader's failover releases the records acquired
// there (they live in its memory); an output leader's fails the produce of
// open transactions over to a follower.
func dataLeaderKill(ctx context.Context, env Env) error {
	topicOf, what, p := dataLeaderTarget(env)
	topic := topicOf(env.Topology)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	node, err := env.Cluster.(cluster.Roles).Coordinator(cctx, cluster.CoordLeader, fmt.Sprintf("%s/%d", topic, p))
	cancel()
	if err != nil {
		return fmt.Errorf("find leader of %s/%d: %w", topic, p, err)
	}
	return killAndRestart(ctx, env, killPlan{point: "under-load", node: node,
		attrs: map[string]string{"leader_of": fmt.Sprintf("%s/%d", topic, p), "partition_kind": what,
			"partition": strconv.Itoa(int(p)), "cells_served": strconv.Itoa(1 + len(env.Cells))}})
}
