package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
)

// Coordinator says which broker holds a role for a key (kafkarole).
func (c *Cluster) Coordinator(ctx context.Context, kind cluster.CoordKind, key string) (cluster.NodeID, error) {
	return kafkarole.New(c.adm).Coordinator(ctx, kind, key)
}

func (c *Cluster) partition(ctx context.Context, topic string, partition int32) (kadm.PartitionDetail, error) {
	return kafkarole.New(c.adm).Partition(ctx, topic, partition)
}

// MoveLeader makes node the leader of topic/partition: it reorders the
// replicas so node is the preferred one (moving data to node first when it
// holds no replica, then dropping the last replica to keep the replication
// factor), elects the preferred replica, and returns once the metadata names
// node as leader.
func (c *Cluster) MoveLeader(ctx context.Context, topic string, partition int32, node cluster.NodeID) error {
	if _, err := c.broker(node); err != nil {
		return err
	}
	want := int32(node)
	p, err := c.partition(ctx, topic, partition)
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
		rs, err := c.adm.AlterPartitionAssignments(ctx, req)
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
		p, err := c.partition(ctx, topic, partition)
		if err == nil && p.Leader == want {
			c.opts.Logger.Info("leader moved", "partition", fmt.Sprintf("%s/%d", topic, partition), "node", node)
			return nil
		}
		if err == nil && slices.Contains(p.ISR, want) {
			set := kadm.TopicsSet{}
			set.Add(topic, partition)
			rs, err := c.adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, set)
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
