package embedded

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
)

// Coordinator finds the broker holding a role, asking the cluster as a client
// would (kafkarole): kfake answers FindCoordinator for transaction, group and
// share-state keys, and the metadata names leaders.
// A leader is read with one plain Metadata request, answered at once
// whatever it says: kfake moves leaders in place, and MoveLeader polls.
func (c *Cluster) Coordinator(ctx context.Context, kind cluster.CoordKind, key string) (cluster.NodeID, error) {
	if kind == cluster.CoordLeader {
		topic, partition, err := kafkarole.SplitTopicPartition(key)
		if err != nil {
			return -1, fmt.Errorf("find leader: %w", err)
		}
		return c.leader(ctx, topic, partition)
	}
	return kafkarole.New(kadm.NewClient(c.admin)).Coordinator(ctx, kind, key)
}

// leader reads topic/partition's leader from metadata.
func (c *Cluster) leader(ctx context.Context, topic string, partition int32) (cluster.NodeID, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, c.admin)
	if err != nil {
		return -1, fmt.Errorf("find leader of %s/%d: %w", topic, partition, err)
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return -1, fmt.Errorf("find leader of %s/%d: %w", topic, partition, err)
		}
		for _, p := range t.Partitions {
			if p.Partition != partition {
				continue
			}
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return -1, fmt.Errorf("find leader of %s/%d: %w", topic, partition, err)
			}
			if p.Leader < 0 {
				return -1, fmt.Errorf("find leader of %s/%d: no leader", topic, partition)
			}
			return cluster.NodeID(p.Leader), nil
		}
	}
	return -1, fmt.Errorf("find leader of %s/%d: %w", topic, partition, kerr.UnknownTopicOrPartition)
}

// MoveLeader makes node the leader of topic/partition. kfake has no replica
// placement to reassign, but its ElectLeaders moves a partition's leadership
// to the next broker (node order, wrapping), so this elects until node leads:
// at most Brokers-1 elections, each checked in the metadata.
func (c *Cluster) MoveLeader(ctx context.Context, topic string, partition int32, node cluster.NodeID) error {
	if err := c.checkNode(node); err != nil {
		return fmt.Errorf("move leader of %s/%d: %w", topic, partition, err)
	}
	for range c.opts.Brokers {
		leader, err := c.leader(ctx, topic, partition)
		if err != nil {
			return fmt.Errorf("move leader: %w", err)
		}
		if leader == node {
			return nil
		}
		if err := c.electLeader(ctx, topic, partition); err != nil {
			return fmt.Errorf("move leader of %s/%d to %d: %w", topic, partition, node, err)
		}
	}
	return fmt.Errorf("move leader of %s/%d to %d: still elsewhere after %d elections", topic, partition, node, c.opts.Brokers)
}

func (c *Cluster) electLeader(ctx context.Context, topic string, partition int32) error {
	req := kmsg.NewPtrElectLeadersRequest()
	req.ElectionType = 0 // preferred
	rt := kmsg.NewElectLeadersRequestTopic()
	rt.Topic = topic
	rt.Partitions = []int32{partition}
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 30000
	resp, err := req.RequestWith(ctx, c.admin)
	if err != nil {
		return fmt.Errorf("elect leader: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("elect leader: %w", err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("elect leader: %w", err)
			}
		}
	}
	return nil
}
