// Package kafkarole finds which broker holds a role, over any bootstrap, by
// asking the cluster as a client would: FindCoordinator for transaction,
// group and share-state keys, the metadata for a partition's leader, and the
// topic ids share-state keys are made of. Every backend's Roles capability
// and the faults use it, so there is one way to ask.
package kafkarole

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Finder answers role questions through one admin client.
type Finder struct{ adm *kadm.Client }

// New is a Finder over adm (the caller owns the client).
func New(adm *kadm.Client) Finder { return Finder{adm: adm} }

// Coordinator says which broker holds a role for a key (cluster.CoordKind):
// FindCoordinator with key type 0 (group), 1 (transaction) or 2 (share: the
// share coordinator owning the share-partition's state, key
// "group:topic:partition" with the topic by name or id), or the partition's
// leader from the metadata for "topic/partition". Coordinators still loading
// are waited for until ctx ends.
func (f Finder) Coordinator(ctx context.Context, kind cluster.CoordKind, key string) (cluster.NodeID, error) {
	var find func() (int32, error)
	switch kind {
	case cluster.CoordGroup:
		find = func() (int32, error) { return coordinatorOf(f.adm.FindGroupCoordinators(ctx, key), key) }
	case cluster.CoordTransaction:
		find = func() (int32, error) { return coordinatorOf(f.adm.FindTxnCoordinators(ctx, key), key) }
	case cluster.CoordShareState:
		shareKey, err := f.normalizeShareKey(ctx, key)
		if err != nil {
			return -1, err
		}
		find = func() (int32, error) { return coordinatorOf(f.adm.FindShareCoordinators(ctx, shareKey), shareKey) }
	case cluster.CoordLeader:
		topic, partition, err := SplitTopicPartition(key)
		if err != nil {
			return -1, err
		}
		find = func() (int32, error) {
			p, err := f.Partition(ctx, topic, partition)
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

// ShareStateKey is the key of a share-partition's state as the broker hashes
// it: "group:topicId:partition", the topic id as Kafka's Uuid.toString prints it.
func (f Finder) ShareStateKey(ctx context.Context, group, topic string, partition int32) (string, error) {
	id, err := f.TopicID(ctx, topic)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s:%s:%d", group, id, partition), nil
}

// TopicID is a topic's id as Kafka prints it (base64url, no padding).
func (f Finder) TopicID(ctx context.Context, topic string) (string, error) {
	m, err := f.adm.Metadata(ctx, topic)
	if err != nil {
		return "", fmt.Errorf("read id of topic %s: %w", topic, err)
	}
	t, ok := m.Topics[topic]
	if !ok {
		return "", fmt.Errorf("read id of topic %s: %w", topic, kerr.UnknownTopicOrPartition)
	}
	if t.Err != nil {
		return "", fmt.Errorf("read id of topic %s: %w", topic, t.Err)
	}
	return kafkaUUID(t.ID), nil
}

// normalizeShareKey turns "group:topic:partition" (topic by name, or by id
// in Kafka's or kadm's base64) into the key the broker hashes.
func (f Finder) normalizeShareKey(ctx context.Context, key string) (string, error) {
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
	m, err := f.adm.Metadata(ctx)
	if err != nil {
		return "", fmt.Errorf("read metadata for share-state key: %w", err)
	}
	if t, ok := m.Topics[topic]; ok {
		return group + ":" + kafkaUUID(t.ID) + ":" + part, nil
	}
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.StdEncoding} {
		if id, err := enc.DecodeString(topic); err == nil && len(id) == 16 {
			return group + ":" + kafkaUUID(kadm.TopicID(id)) + ":" + part, nil
		}
	}
	return "", fmt.Errorf("parse share-state key %q: %q is neither a topic id nor a topic", key, topic)
}

// kafkaUUID renders an id the way Kafka's Uuid.toString does.
func kafkaUUID(id kadm.TopicID) string { return base64.RawURLEncoding.EncodeToString(id[:]) }

// SplitTopicPartition splits "topic/partition"; the last slash separates.
func SplitTopicPartition(key string) (string, int32, error) {
	i := strings.LastIndexByte(key, '/')
	if i <= 0 {
		return "", 0, fmt.Errorf("parse partition %q: want topic/partition", key)
	}
	p, err := strconv.ParseInt(key[i+1:], 10, 32)
	if err != nil || p < 0 {
		return "", 0, fmt.Errorf("parse partition %q: want topic/partition", key)
	}
	return key[:i], int32(p), nil
}

// Partition is one partition's metadata.
func (f Finder) Partition(ctx context.Context, topic string, partition int32) (kadm.PartitionDetail, error) {
	m, err := f.adm.Metadata(ctx, topic)
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

// Leaders maps each partition of topic to its leader.
func (f Finder) Leaders(ctx context.Context, topic string) (map[int32]cluster.NodeID, error) {
	m, err := f.adm.Metadata(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("read leaders of %s: %w", topic, err)
	}
	t, ok := m.Topics[topic]
	if !ok || t.Err != nil {
		return nil, fmt.Errorf("read leaders of %s: %v", topic, t.Err)
	}
	out := make(map[int32]cluster.NodeID, len(t.Partitions))
	for p, d := range t.Partitions {
		out[p] = cluster.NodeID(d.Leader)
	}
	return out, nil
}
