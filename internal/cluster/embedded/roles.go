package embedded

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// FindCoordinator's coordinator types.
const (
	coordinatorTypeGroup       int8 = 0
	coordinatorTypeTransaction int8 = 1
	coordinatorTypeShare       int8 = 2 // KIP-932, FindCoordinator v6+
)

// Coordinator finds the broker holding a role, asking the cluster as a client
// would: FindCoordinator for transaction, group and share-state keys (kfake
// answers all three; a share-state key is "group:topicId:partition" with the
// topic id as Kafka prints it), metadata for a leader ("topic/partition").
func (c *Cluster) Coordinator(ctx context.Context, kind cluster.CoordKind, key string) (cluster.NodeID, error) {
	switch kind {
	case cluster.CoordGroup:
		return c.findCoordinator(ctx, coordinatorTypeGroup, key)
	case cluster.CoordTransaction:
		return c.findCoordinator(ctx, coordinatorTypeTransaction, key)
	case cluster.CoordShareState:
		return c.findCoordinator(ctx, coordinatorTypeShare, key)
	case cluster.CoordLeader:
		topic, partition, err := parseLeaderKey(key)
		if err != nil {
			return -1, fmt.Errorf("find leader: %w", err)
		}
		return c.leader(ctx, topic, partition)
	default:
		return -1, fmt.Errorf("find coordinator: kind %q: %w", kind, cluster.ErrUnsupported)
	}
}

func (c *Cluster) findCoordinator(ctx context.Context, typ int8, key string) (cluster.NodeID, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = typ
	req.CoordinatorKey = key
	req.CoordinatorKeys = []string{key}
	resp, err := req.RequestWith(ctx, c.admin)
	if err != nil {
		return -1, fmt.Errorf("find coordinator for %q: %w", key, err)
	}
	if len(resp.Coordinators) != 1 {
		return -1, fmt.Errorf("find coordinator for %q: %d answers, want 1", key, len(resp.Coordinators))
	}
	co := resp.Coordinators[0]
	if err := kerr.ErrorForCode(co.ErrorCode); err != nil {
		return -1, fmt.Errorf("find coordinator for %q: %w", key, err)
	}
	return cluster.NodeID(co.NodeID), nil
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

// parseLeaderKey splits "topic/partition"; the last slash separates, so a
// topic name may contain none (Kafka forbids "/" in topic names anyway).
func parseLeaderKey(key string) (string, int32, error) {
	i := strings.LastIndexByte(key, '/')
	if i <= 0 {
		return "", -1, fmt.Errorf("key %q: want topic/partition", key)
	}
	p, err := strconv.ParseInt(key[i+1:], 10, 32)
	if err != nil || p < 0 {
		return "", -1, fmt.Errorf("key %q: want topic/partition", key)
	}
	return key[:i], int32(p), nil
}
