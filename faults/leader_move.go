package faults

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// PointLeaderMoved is where LeaderMove fires: the input partition's
// leadership moved to another broker.
const PointLeaderMoved = "leader-moved"

// LeaderMove moves one input partition's leadership to another broker, as
// a reassignment or an operator's preferred-leader election does, with
// every broker up: the share-partition's new leader loads its state from
// the share coordinator, and the records acquired at the old one come back.
// Every cell the injection serves moves the same partition to the same
// broker.
var LeaderMove = Mechanism{Act: leaderMove, Needs: needsAll(needsRoles, needsSeparateBrokers), Scope: ScopeShared}

func leaderMove(ctx context.Context, env Env) error {
	roles := env.Cluster.(cluster.Roles)
	p := int32(env.Rand.IntN(int(env.Topology.Partitions)))
	input := fmt.Sprintf("%s/%d", env.Topology.InputTopic, p)
	from, err := coordinatorOf(ctx, roles, role{what: "leader of " + input, kind: cluster.CoordLeader, key: input})
	if err != nil {
		return err
	}
	var others []cluster.NodeID
	for _, n := range env.Cluster.Nodes() {
		if n != from {
			others = append(others, n)
		}
	}
	if len(others) == 0 {
		return fmt.Errorf("leader move: no broker but %d to move %s to", from, input)
	}
	to := others[env.Rand.IntN(len(others))]
	// The fault's span is the move, from the first reassignment to the
	// last election: what a failover row's pending acks must meet.
	began := time.Now()
	var moved []string
	for _, t := range env.all() {
		mctx, cancel := context.WithTimeout(ctx, moveLimit)
		err := roles.MoveLeader(mctx, t.InputTopic, p, to)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("leader move: %s/%d to broker %d: %w", t.InputTopic, p, to, err)
		}
		moved = append(moved, fmt.Sprintf("%s/%d", t.InputTopic, p))
	}
	fired(env, PointLeaderMoved, began, map[string]string{"action": "input partition leadership moved, every broker up",
		"partition": input, "from": strconv.Itoa(int(from)), "to": strconv.Itoa(int(to)), "moved": strings.Join(moved, ",")})
	// Nothing to undo: the move is the fault, and the new leader stays.
	healed(env, time.Now(), map[string]string{"action": "the move done; nothing to undo: the new leader keeps the partition"})
	return nil
}
