package kafkarole

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Roles implements cluster.Roles on an admin client, for every backend on
// real Kafka (docker, external). Known says whether a node id is one of the
// cluster's brokers; Log receives a line per leader moved.
type Roles struct {
	Adm   *kadm.Client
	Known func(cluster.NodeID) error
	Log   *slog.Logger
}

// Coordinator says which broker holds a role for a key (Finder.Coordinator).
func (c Roles) Coordinator(ctx context.Context, kind cluster.CoordKind, key string) (cluster.NodeID, error) {
	return New(c.Adm).Coordinator(ctx, kind, key)
}

// MoveLeader makes node the leader of topic/partition: it reorders the
// replicas so node is the preferred one (moving data to node first when it
// holds no replica, then dropping the last replica to keep the replication
// factor), elects the preferred replica, and returns once the metadata names
// node as leader.
func (c Roles) MoveLeader(ctx context.Context, topic string, partition int32, node cluster.NodeID) error {
	if err := c.Known(node); err != nil {
		return err
	}
	want := int32(node)
	p, err := New(c.Adm).Partition(ctx, topic, partition)
	if err != nil {
		return fmt.Errorf("move leader of %s/%d: %w", topic, partition, err)
	}
	if p.Leader == want {
		return nil
	}
	replicas := preferredFirst(p.Replicas, want)
	if !slices.Equal(replicas, p.Replicas) {
		req := kadm.AlterPartitionAssignmentsReq{}
		req.Assign(topic, partition, replicas)
		rs, err := c.Adm.AlterPartitionAssignments(ctx, req)
		if err == nil {
			err = rs.Error()
		}
		if err != nil {
			return fmt.Errorf("move leader of %s/%d: reassign to %v: %w", topic, partition, replicas, err)
		}
	}
	// Election fails while node is not yet in the ISR (a reassignment
	// still copying data, a follower catching up): retry until the metadata
	// shows node leading.
	var last error
	for {
		p, err := New(c.Adm).Partition(ctx, topic, partition)
		if err == nil && p.Leader == want {
			c.Log.Info("leader moved", "partition", fmt.Sprintf("%s/%d", topic, partition), "node", node)
			return nil
		}
		if err == nil && slices.Contains(p.ISR, want) {
			set := kadm.TopicsSet{}
			set.Add(topic, partition)
			rs, err := c.Adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, set)
			last = err
			if err == nil {
				if r := rs[topic][partition]; r.Err != nil && !errors.Is(r.Err, kerr.ElectionNotNeeded) {
					last = r.Err
				}
			}
		} else if err != nil {
			last = err
		} else {
			last = fmt.Errorf("broker %d not in ISR %v yet", node, p.ISR)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("move leader of %s/%d to %d (last: %v): %w", topic, partition, node, last, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// preferredFirst orders replicas so that node comes first; a node that is
// not a replica takes the place of the last one.
func preferredFirst(replicas []int32, node int32) []int32 {
	out := []int32{node}
	for _, r := range replicas {
		if r != node {
			out = append(out, r)
		}
	}
	return out[:len(replicas)]
}
