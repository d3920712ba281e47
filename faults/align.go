package faults

import (
	"context"
	"fmt"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Align and Act of a shared fault draw their aim from two Env.Rand streams
// seeded alike (the runner's job), so each target is picked by one function
// both call.

// dataLeaderTarget is what data-leader-kill aims at: an input or an output
// partition, drawn.
func dataLeaderTarget(env Env) (topicOf func(ctp.Topology) string, what string, p int32) {
	topicOf, what = func(t ctp.Topology) string { return t.InputTopic }, "input"
	if env.Rand.IntN(2) == 1 {
		topicOf, what = func(t ctp.Topology) string { return t.OutputTopic }, "output"
	}
	return topicOf, what, int32(env.Rand.IntN(int(env.Topology.Partitions)))
}

// alignDataLeaders makes the leader of the drawn partition in every other
// cell the broker that leads it in Env.Topology, so the one kill takes a
// data leader of every cell.
func alignDataLeaders(ctx context.Context, env Env) error {
	topicOf, _, p := dataLeaderTarget(env)
	roles := env.Cluster.(cluster.Roles)
	key := fmt.Sprintf("%s/%d", topicOf(env.Topology), p)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	node, err := roles.Coordinator(cctx, cluster.CoordLeader, key)
	cancel()
	if err != nil {
		return fmt.Errorf("align data leaders: find leader of %s: %w", key, err)
	}
	for _, t := range env.Cells {
		if p >= t.Partitions {
			return fmt.Errorf("align data leaders: %s has %d partitions, the fault aims at partition %d", t.Prefix, t.Partitions, p)
		}
		mctx, cancel := context.WithTimeout(ctx, moveLimit)
		err := roles.MoveLeader(mctx, topicOf(*t), p, node)
		cancel()
		if err != nil {
			return fmt.Errorf("align data leaders: %w", err)
		}
	}
	return nil
}

// shareStateTarget is the input partition whose share-partition state
// share-state-leader-kill aims at, drawn.
func shareStateTarget(env Env) int32 { return int32(env.Rand.IntN(int(env.Topology.Partitions))) }

// groupNameTries bounds the search for a share group name whose state for
// the drawn partition lives on a given broker (each try hits it with about
// one chance in the broker count).
const groupNameTries = 64

// alignShareCoordinators renames every other cell's share group (no member
// has joined yet) until the share coordinator of its drawn input
// partition's state is Env.Topology's: a share-state partition is chosen by
// the hash of group, topic id and partition, so a name is searched, and
// the group's configs are set again under the new name.
func alignShareCoordinators(ctx context.Context, env Env) error {
	p := shareStateTarget(env)
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	roles := env.Cluster.(cluster.Roles)
	coordinatorOfGroup := func(group, topic string) (cluster.NodeID, error) {
		key, err := a.shareStateKey(ctx, group, topic, p)
		if err != nil {
			return -1, err
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return roles.Coordinator(cctx, cluster.CoordShareState, key)
	}
	node, err := coordinatorOfGroup(env.Topology.Group, env.Topology.InputTopic)
	if err != nil {
		return fmt.Errorf("align share coordinators: %w", err)
	}
	for _, t := range env.Cells {
		if p >= t.Partitions {
			return fmt.Errorf("align share coordinators: %s has %d partitions, the fault aims at partition %d", t.Prefix, t.Partitions, p)
		}
		found := false
		for i := 0; i < groupNameTries && !found; i++ {
			name := t.Group
			if i > 0 {
				name = fmt.Sprintf("%s-s%d", t.Group, i)
			}
			n, err := coordinatorOfGroup(name, t.InputTopic)
			if err != nil {
				return fmt.Errorf("align share coordinators: %w", err)
			}
			if n == node {
				t.Group, found = name, true
			}
		}
		if !found {
			return fmt.Errorf("align share coordinators: no share group name for %s with its state on broker %d in %d tries", t.Prefix, node, groupNameTries)
		}
	}
	return nil
}
