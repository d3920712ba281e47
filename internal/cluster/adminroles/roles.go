// Package adminroles finds which broker holds a role and moves partition
// leadership through the admin API alone, so every backend on real Kafka
// (docker, external) implements cluster.Roles the same way.
package adminroles

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Roles implements cluster.Roles on an admin client. Known says whether a
// node id is one of the cluster's brokers; Log receives a line per leader
// moved.
type Roles struct {
	Adm   *kadm.Client
	Known func(cluster.NodeID) error
	Log   *slog.Logger
}

// Coordinator says which broker holds a role for a key (see
// cluster.CoordKind): FindCoordinator with key type 0 (group), 1
// (transaction) or 2 (share: the share coordinator owning the
// share-partition's state, key "group:topicId:partition"), or the
// partition's leader from the metadata for "topic/partition". For the
// share-state key the topic may also be given by name; topic ids may be in
// Kafka's form (base64url, no padding) or kadm's (standard base64).
// Coordinators still loading are waited for until ctx ends.
func (c Roles) Coordinator(ctx context.Context, kind cluster.CoordKind, key string) (cluster.NodeID, error) {
	var find func() (int32, error)
	switch kind {
	case cluster.CoordGroup:
		find = func() (int32, error) { return coordinatorOf(c.Adm.FindGroupCoordinators(ctx, key), key) }
	case cluster.CoordTransaction:
		find = func() (int32, error) { return coordinatorOf(c.Adm.FindTxnCoordinators(ctx, key), key) }
	case cluster.CoordShareState:
		shareKey, err := c.shareStateKey(ctx, key)
		if err != nil {
			return -1, err
		}
		find = func() (int32, error) { return coordinatorOf(c.Adm.FindShareCoordinators(ctx, shareKey), shareKey) }
	case cluster.CoordLeader:
		topic, partition, err := splitTopicPartition(key)
		if err != nil {
			return -1, err
		}
		find = func() (int32, error) {
			p, err := c.partition(ctx, topic, partition)
			if err != nil {
				return -1, err
			}
			if p.Leader < 0 {
				return -1, kerr.LeaderNotAvailable
			}
			return p.Leader, nil
		}
	default:
		return -1, fmt.Errorf("find %s coordinator: %w", kind, cluster.ErrUnsupported)
	}
	for {
		node, err := find()
		if err == nil {
			return cluster.NodeID(node), nil
		}
		if !kerr.IsRetriable(err) && !errors.Is(err, kerr.CoordinatorNotAvailable) {
			return -1, fmt.Errorf("find %s coordinator of %q: %w", kind, key, err)
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("find %s coordinator of %q: %w (gave up: %w)", kind, key, err, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func coordinatorOf(rs kadm.FindCoordinatorResponses, key string) (int32, error) {
	r, ok := rs[key]
	if !ok {
		return -1, fmt.Errorf("no answer for key %q", key)
	}
	if r.Err != nil {
		return -1, r.Err
	}
	return r.NodeID, nil
}

// shareStateKey normalizes "group:topic:partition" to the key the broker
// hashes: the topic as Kafka's Uuid string.
func (c Roles) shareStateKey(ctx context.Context, key string) (string, error) {
	// The broker parses from the right: a group id may contain ':'.
	last := strings.LastIndexByte(key, ':')
	mid := -1
	if last > 0 {
		mid = strings.LastIndexByte(key[:last], ':')
	}
	if mid < 0 {
		return "", fmt.Errorf("parse share-state key %q: want group:topicId:partition", key)
	}
	group, topic, part := key[:mid], key[mid+1:last], key[last+1:]
	if _, err := strconv.ParseInt(part, 10, 32); err != nil {
		return "", fmt.Errorf("parse share-state key %q: partition: %w", key, err)
	}
	// A topic name can look like an id (22 characters of [A-Za-z0-9_-]):
	// a topic of that name wins.
	m, err := c.Adm.Metadata(ctx)
	if err != nil {
		return "", fmt.Errorf("read metadata for share-state key: %w", err)
	}
	if t, ok := m.Topics[topic]; ok {
		return group + ":" + KafkaUUID(t.ID) + ":" + part, nil
	}
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.StdEncoding} {
		if id, err := enc.DecodeString(topic); err == nil && len(id) == 16 {
			return group + ":" + KafkaUUID(kadm.TopicID(id)) + ":" + part, nil
		}
	}
	return "", fmt.Errorf("parse share-state key %q: %q is neither a topic id nor a topic", key, topic)
}

// KafkaUUID renders an id the way Kafka's Uuid.toString does.
func KafkaUUID(id kadm.TopicID) string { return base64.RawURLEncoding.EncodeToString(id[:]) }

func splitTopicPartition(key string) (string, int32, error) {
	i := strings.LastIndexByte(key, '/')
	if i <= 0 {
		return "", 0, fmt.Errorf("parse partition %q: want topic/partition", key)
	}
	p, err := strconv.ParseInt(key[i+1:], 10, 32)
	if err != nil {
		return "", 0, fmt.Errorf("parse partition %q: %w", key, err)
	}
	return key[:i], int32(p), nil
}

func (c Roles) partition(ctx context.Context, topic string, partition int32) (kadm.PartitionDetail, error) {
	m, err := c.Adm.Metadata(ctx, topic)
	if err != nil {
		return kadm.PartitionDetail{}, fmt.Errorf("read metadata of %s: %w", topic, err)
	}
	t, ok := m.Topics[topic]
	if !ok {
		return kadm.PartitionDetail{}, kerr.UnknownTopicOrPartition
	}
	if t.Err != nil {
		return kadm.PartitionDetail{}, t.Err
	}
	p, ok := t.Partitions[partition]
	if !ok {
		return kadm.PartitionDetail{}, kerr.UnknownTopicOrPartition
	}
	return p, p.Err
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
		p, err := c.partition(ctx, topic, partition)
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
