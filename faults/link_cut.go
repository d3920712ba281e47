package faults

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// linkCutFor is how long the two brokers cannot reach each other: past
// replica.lag.time.max.ms (10 s), so the far broker drops out of the
// leader's ISRs, well inside the acquisition lock and the transaction
// timeout.
const linkCutFor = 15 * time.Second

// linkCut cuts the links between the leader of one input partition and one
// other broker, both ways, then heals them and waits until no partition is
// under-replicated (ORACLE.md "link-cut"). A partial partition: both
// brokers still serve clients and reach the third; what crossed that pair
// stops: the far broker's replication from the leader, and whichever
// share-state writes, transaction markers and controller traffic ran
// between them. When one of the two is the active controller, the other
// cannot heartbeat to it and is fenced, so its leaderships move, and move
// back once the links are healed.
func linkCut(ctx context.Context, env Env) error {
	p := int32(env.Rand.IntN(int(env.Topology.Partitions)))
	key := fmt.Sprintf("%s/%d", env.Topology.InputTopic, p)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	leader, err := env.Cluster.(cluster.Roles).Coordinator(cctx, cluster.CoordLeader, key)
	cancel()
	if err != nil {
		return fmt.Errorf("find the leader of %s: %w", key, err)
	}
	others := slices.DeleteFunc(env.Cluster.Nodes(), func(n cluster.NodeID) bool { return n == leader })
	if len(others) == 0 {
		return fmt.Errorf("cut a link of broker %d: no other broker", leader)
	}
	far := others[env.Rand.IntN(len(others))]
	at := time.Now()
	if err := env.Cluster.(brokerLinks).Disconnect(ctx, leader, far); err != nil {
		_ = healNetwork(ctx, env, nil)
		return fmt.Errorf("cut the links between brokers %d and %d: %w", leader, far, err)
	}
	fired(env, "under-load", at, map[string]string{"leader_of": key, "from": strconv.Itoa(int(leader)), "to": strconv.Itoa(int(far)),
		"action": "the links between the two brokers cut, both ways (both still serve clients)", "for": linkCutFor.String()})
	sleepCtx(ctx, linkCutFor)
	return healNetwork(ctx, env, &far)
}
