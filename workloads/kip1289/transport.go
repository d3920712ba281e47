package kip1289

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// Coordinator types of FindCoordinator.
const (
	coordinatorTxn   int8 = 1
	coordinatorShare int8 = 2 // KIP-932: key "group:topicId:partition"
)

// transport sends the two RPCs for one transactional id: AddShareAcksToTxn to
// the transaction coordinator, then TxnShareAcknowledge to where its
// negotiated version says (Support.Route): v0 to the share coordinator of each
// share-partition (the KIP as written), v1 to the leader of each
// share-partition's topic-partition (the patched Kafka). The wire types are not
// kgo coordinator requests (kgo would refuse them), so transport finds the
// brokers itself and sends with Broker(id).Request.
//
// It caches what it finds, as kgo caches its own coordinators and leaders:
// the transaction coordinator of its transactional id, the share coordinator
// or the leader of each share-partition, until a request to one fails in a way
// that says it moved or is gone (coordinatorMoved, leaderMoved). So a
// transaction's acks cost the KIP's two round trips, not four.
type transport struct {
	cl   *kgo.Client
	keys APIKeys

	mu       sync.Mutex
	support  *Support
	topicIDs map[string][16]byte
	coords   map[coordKey]int32
	leaders  map[TopicPartition]int32
	// sent are the TxnShareAcknowledge requests of the last send that were
	// answered (a retried share-partition is in each request that carried it).
	sent []SentRequest
	// took is where the last send's time went.
	took SendTimings
}

// SendTimings is where one SendShareAcksToTransaction's time went, each
// part with its retries: what the client pays for KIP-1289, request by
// request.
type SendTimings struct {
	// Prepare: the checks and the flush before the first request (is a
	// transaction open, do the brokers speak the RPCs, the producer's
	// records flushed, its id and epoch).
	Prepare time.Duration
	// AddShareAcksToTxn: the request to the transaction coordinator that
	// ties the share-partitions to the transaction.
	AddShareAcksToTxn time.Duration
	// TxnShareAcknowledge: the requests staging the acks at the
	// share-partitions' leaders (sent at once, so the slowest counts), topic
	// ids and leaders resolved first when not cached.
	TxnShareAcknowledge time.Duration
}

// SentRequest is one TxnShareAcknowledge that was answered: its broker and the
// share-partitions it carried.
type SentRequest struct {
	Node       int32
	Partitions []TopicPartition
}

// coordKey is one FindCoordinator question.
type coordKey struct {
	typ int8
	key string
}

func newTransport(cl *kgo.Client, keys APIKeys) (*transport, error) {
	keys = keys.orDefault()
	if err := keys.Validate(); err != nil {
		return nil, err
	}
	if err := keys.clientAllows(cl); err != nil {
		return nil, err
	}
	return &transport{cl: cl, keys: keys, topicIDs: make(map[string][16]byte), coords: make(map[coordKey]int32),
		leaders: make(map[TopicPartition]int32)}, nil
}

// requireSupport negotiates once per transport and refuses a cluster without
// the RPCs before anything new is sent.
func (t *transport) requireSupport(ctx context.Context) error {
	t.mu.Lock()
	s := t.support
	t.mu.Unlock()
	if s == nil {
		got, err := Negotiate(ctx, t.cl, t.keys)
		if err != nil {
			return err
		}
		t.mu.Lock()
		t.support, s = &got, &got
		t.mu.Unlock()
	}
	if !s.Native {
		return &UnsupportedError{Missing: s.Missing}
	}
	return nil
}

// producerTxn is the producer identity one transaction runs under.
type producerTxn struct {
	TransactionalID string
	ProducerID      int64
	Epoch           int16
}

// send puts acks into the open transaction of p: enlist, then stage.
func (t *transport) send(ctx context.Context, p producerTxn, acks ShareAcknowledgements, md ShareGroupMetadata) error {
	began := time.Now()
	err := t.addShareAcksToTxn(ctx, p, acks, md.GroupID)
	added := time.Now()
	if err == nil {
		err = t.txnShareAcknowledge(ctx, p, acks, md)
	}
	t.mu.Lock()
	t.took.AddShareAcksToTxn, t.took.TxnShareAcknowledge = added.Sub(began), time.Since(added)
	t.mu.Unlock()
	return err
}

// lastTimings is where the last send's time went, Prepare left to the
// caller.
func (t *transport) lastTimings() SendTimings {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.took
}

func (t *transport) addShareAcksToTxn(ctx context.Context, p producerTxn, acks ShareAcknowledgements, group string) error {
	req := &wire.AddShareAcksToTxnRequest{
		APIKey:          t.keys.AddShareAcksToTxn,
		TransactionalID: p.TransactionalID,
		ProducerID:      p.ProducerID,
		ProducerEpoch:   p.Epoch,
		GroupID:         group,
	}
	byTopic := make(map[string]int)
	for _, tp := range acks.Partitions() {
		i, ok := byTopic[tp.Topic]
		if !ok {
			i = len(req.Topics)
			byTopic[tp.Topic] = i
			req.Topics = append(req.Topics, wire.AddShareAcksToTxnRequestTopic{Topic: tp.Topic})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, tp.Partition)
	}
	return retry(ctx, "add share acks to txn", func() error {
		node, err := t.coordinator(ctx, coordinatorTxn, p.TransactionalID)
		if err != nil {
			return err
		}
		resp, err := req.RequestWith(ctx, t.cl.Broker(int(node)))
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if coordinatorMoved(err) {
			t.forget(coordinatorTxn, p.TransactionalID)
		}
		return err
	})
}

func (t *transport) txnShareAcknowledge(ctx context.Context, p producerTxn, acks ShareAcknowledgements, md ShareGroupMetadata) error {
	group := md.GroupID
	ids, err := t.resolveTopicIDs(ctx, acks)
	if err != nil {
		return err
	}
	toLeader := t.ackVersion() == wire.TxnShareAcknowledgeToLeader
	route := func(acks ShareAcknowledgements) (map[int32]ShareAcknowledgements, error) {
		if toLeader {
			return t.partitionLeaders(ctx, acks)
		}
		return t.shareCoordinators(ctx, group, ids, acks)
	}
	forget := func(acks ShareAcknowledgements) {
		if toLeader {
			t.forgetLeaders(acks)
		} else {
			t.forgetShare(group, ids, acks)
		}
	}
	moved := coordinatorMoved
	if toLeader {
		moved = leaderMoved
	}
	// pending holds the share-partitions without a definite answer yet; a
	// partition leaves it when it is staged or refused. A refusal is final for
	// the transaction: it is kept across the retries of its siblings, or the
	// siblings' success would commit the refused partition's outputs without
	// its acks (FINDINGS 27).
	pending := maps.Clone(acks)
	refused := make(map[TopicPartition]error)
	t.mu.Lock()
	t.sent = nil
	t.mu.Unlock()
	err = retry(ctx, "txn share acknowledge", func() error {
		byNode, err := route(pending)
		if err != nil {
			return err
		}
		for node, part := range byNode {
			results, err := t.txnShareAcknowledgeTo(ctx, node, p, md, ids, part)
			if err != nil {
				forget(part)
				return err // transport error: resend what is pending, staging is idempotent
			}
			for tp, perr := range results {
				switch {
				case perr == nil:
					delete(pending, tp)
				case isRetriable(perr):
					if moved(perr) {
						forget(ShareAcknowledgements{tp: nil})
					}
				default:
					refused[tp] = perr
					delete(pending, tp)
				}
			}
		}
		if len(pending) > 0 {
			if toLeader {
				return kerr.NotLeaderForPartition // some partitions moved: retry only them
			}
			return kerr.NotCoordinator // some partitions moved: retry only them
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		var out PartitionErrors
		for _, tp := range acks.Partitions() {
			if perr, ok := refused[tp]; ok {
				out = append(out, PartitionError{tp, perr})
			}
		}
		return out
	}
	return nil
}

func (t *transport) txnShareAcknowledgeTo(ctx context.Context, node int32, p producerTxn, md ShareGroupMetadata,
	ids map[string][16]byte, acks ShareAcknowledgements) (map[TopicPartition]error, error) {
	req := &wire.TxnShareAcknowledgeRequest{
		APIKey:          t.keys.TxnShareAcknowledge,
		GroupID:         md.GroupID,
		TransactionalID: p.TransactionalID,
		ProducerID:      p.ProducerID,
		ProducerEpoch:   p.Epoch,
	}
	if md.MemberID != "" && md.GenerationID > 0 {
		// The proposed amendment's tagged fields: only a member id with a
		// live epoch (a kgo consumer's looked-up metadata may be stale, and
		// an absent tag is the KIP as written).
		id, epoch := md.MemberID, md.GenerationID
		req.MemberID, req.MemberEpoch = &id, &epoch
	}
	names := make(map[[16]byte]string)
	byTopic := make(map[string]int)
	for _, tp := range acks.Partitions() {
		i, ok := byTopic[tp.Topic]
		if !ok {
			i = len(req.Topics)
			byTopic[tp.Topic] = i
			req.Topics = append(req.Topics, wire.TxnShareAcknowledgeRequestTopic{TopicID: ids[tp.Topic]})
			names[ids[tp.Topic]] = tp.Topic
		}
		part := wire.TxnShareAcknowledgeRequestPartition{Partition: tp.Partition}
		for _, b := range acks[tp] {
			part.AcknowledgementBatches = append(part.AcknowledgementBatches, wire.AcknowledgementBatch{
				FirstOffset: b.FirstOffset, LastOffset: b.LastOffset, AcknowledgeType: int8(b.AckType)})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, part)
	}
	resp, err := req.RequestWith(ctx, t.cl.Broker(int(node)))
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.sent = append(t.sent, SentRequest{Node: node, Partitions: acks.Partitions()})
	t.mu.Unlock()
	results := make(map[TopicPartition]error)
	for tp := range acks {
		results[tp] = errors.New("partition missing from the response")
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			tp := TopicPartition{names[rt.TopicID], rp.Partition}
			if _, asked := results[tp]; asked {
				results[tp] = kerr.ErrorForCode(rp.ErrorCode)
			}
		}
	}
	return results, nil
}

// coordinator finds the broker that coordinates key.
func (t *transport) coordinator(ctx context.Context, typ int8, key string) (int32, error) {
	nodes, err := t.coordinators(ctx, typ, []string{key})
	if err != nil {
		return 0, err
	}
	return nodes[key], nil
}

// coordinators finds the brokers that coordinate keys: from the cache, and
// with one FindCoordinator for the keys it does not hold.
func (t *transport) coordinators(ctx context.Context, typ int8, keys []string) (map[string]int32, error) {
	out := make(map[string]int32, len(keys))
	var missing []string
	t.mu.Lock()
	for _, k := range keys {
		if n, ok := t.coords[coordKey{typ, k}]; ok {
			out[k] = n
		} else if !slices.Contains(missing, k) {
			missing = append(missing, k)
		}
	}
	t.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = typ
	req.CoordinatorKeys = missing
	resp, err := req.RequestWith(ctx, t.cl)
	if err != nil {
		return nil, fmt.Errorf("find coordinator: %w", err)
	}
	found := make(map[string]int32, len(missing))
	for _, c := range resp.Coordinators {
		if err := kerr.ErrorForCode(c.ErrorCode); err != nil {
			return nil, fmt.Errorf("find coordinator of %q: %w", c.Key, err)
		}
		found[c.Key] = c.NodeID
	}
	for _, k := range missing {
		if _, ok := found[k]; !ok {
			return nil, fmt.Errorf("find coordinator of %q: not in the response", k)
		}
	}
	t.mu.Lock()
	for k, n := range found {
		t.coords[coordKey{typ, k}] = n
		out[k] = n
	}
	t.mu.Unlock()
	return out, nil
}

// forget drops a cached coordinator: the next request asks again.
func (t *transport) forget(typ int8, keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		delete(t.coords, coordKey{typ, k})
	}
}

// forgetShare drops the cached share coordinators of acks' partitions.
func (t *transport) forgetShare(group string, ids map[string][16]byte, acks ShareAcknowledgements) {
	keys := make([]string, 0, len(acks))
	for tp := range acks {
		keys = append(keys, ShareCoordinatorKey(group, ids[tp.Topic], tp.Partition))
	}
	t.forget(coordinatorShare, keys...)
}

// coordinatorMoved: err says the broker asked is not (or no longer) the
// coordinator, or could not be reached, so the cached answer is stale. A
// coordinator still loading (COORDINATOR_LOAD_IN_PROGRESS) is the right one.
func coordinatorMoved(err error) bool {
	if err == nil || errors.Is(err, kerr.CoordinatorLoadInProgress) {
		return false
	}
	var ke *kerr.Error
	if !errors.As(err, &ke) {
		return true // a transport error: the broker may be gone
	}
	return errors.Is(err, kerr.NotCoordinator) || errors.Is(err, kerr.CoordinatorNotAvailable)
}

// ackVersion is the TxnShareAcknowledge version negotiated (requireSupport
// ran before anything is sent).
func (t *transport) ackVersion() int16 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.support == nil {
		return wire.TxnShareAcknowledgeToCoordinator
	}
	return t.support.TxnShareAcknowledgeVersion
}

// leaderMoved: err says the broker asked no longer leads the partition (or
// could not be reached), so the cached leader is stale.
func leaderMoved(err error) bool {
	if err == nil {
		return false
	}
	var ke *kerr.Error
	if !errors.As(err, &ke) {
		return true // a transport error: the broker may be gone
	}
	return errors.Is(err, kerr.NotLeaderForPartition) || errors.Is(err, kerr.FencedLeaderEpoch) ||
		errors.Is(err, kerr.LeaderNotAvailable) || errors.Is(err, kerr.UnknownTopicOrPartition)
}

// partitionLeaders splits acks by the leader of each share-partition's
// topic-partition: from the cache, and with one Metadata request for the
// topics of partitions it does not hold.
func (t *transport) partitionLeaders(ctx context.Context, acks ShareAcknowledgements) (map[int32]ShareAcknowledgements, error) {
	var unknown []string
	t.mu.Lock()
	for tp := range acks {
		if _, ok := t.leaders[tp]; !ok && !slices.Contains(unknown, tp.Topic) {
			unknown = append(unknown, tp.Topic)
		}
	}
	t.mu.Unlock()
	if len(unknown) > 0 {
		resp, err := t.metadata(ctx, unknown)
		if err != nil {
			return nil, fmt.Errorf("find partition leaders: %w", err)
		}
		t.mu.Lock()
		for _, rt := range resp.Topics {
			if rt.Topic == nil || kerr.ErrorForCode(rt.ErrorCode) != nil {
				continue
			}
			for _, rp := range rt.Partitions {
				if kerr.ErrorForCode(rp.ErrorCode) == nil && rp.Leader >= 0 {
					t.leaders[TopicPartition{*rt.Topic, rp.Partition}] = rp.Leader
				}
			}
		}
		t.mu.Unlock()
	}
	out := make(map[int32]ShareAcknowledgements)
	t.mu.Lock()
	defer t.mu.Unlock()
	for tp, bs := range acks {
		n, ok := t.leaders[tp]
		if !ok {
			return nil, fmt.Errorf("find partition leader of %s/%d: %w", tp.Topic, tp.Partition, kerr.LeaderNotAvailable)
		}
		if out[n] == nil {
			out[n] = make(ShareAcknowledgements)
		}
		out[n][tp] = bs
	}
	return out, nil
}

// forgetLeaders drops the cached leaders of acks' partitions.
func (t *transport) forgetLeaders(acks ShareAcknowledgements) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for tp := range acks {
		delete(t.leaders, tp)
	}
}

// shareCoordinators splits acks by the broker that coordinates each
// share-partition's state.
func (t *transport) shareCoordinators(ctx context.Context, group string, ids map[string][16]byte,
	acks ShareAcknowledgements) (map[int32]ShareAcknowledgements, error) {
	keys := make([]string, 0, len(acks))
	keyOf := make(map[TopicPartition]string, len(acks))
	for tp := range acks {
		k := ShareCoordinatorKey(group, ids[tp.Topic], tp.Partition)
		keyOf[tp] = k
		keys = append(keys, k)
	}
	nodes, err := t.coordinators(ctx, coordinatorShare, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[int32]ShareAcknowledgements)
	for tp, bs := range acks {
		n := nodes[keyOf[tp]]
		if out[n] == nil {
			out[n] = make(ShareAcknowledgements)
		}
		out[n][tp] = bs
	}
	return out, nil
}

// ShareCoordinatorKey is KIP-932's share coordinator key:
// "group:topicId:partition", the topic id in Kafka's Uuid.toString form
// (base64url without padding).
func ShareCoordinatorKey(group string, topicID [16]byte, partition int32) string {
	return group + ":" + base64.RawURLEncoding.EncodeToString(topicID[:]) + ":" + strconv.Itoa(int(partition))
}

func (t *transport) resolveTopicIDs(ctx context.Context, acks ShareAcknowledgements) (map[string][16]byte, error) {
	t.mu.Lock()
	ids := make(map[string][16]byte, len(acks))
	var unknown []string
	for tp := range acks {
		if id, ok := t.topicIDs[tp.Topic]; ok {
			ids[tp.Topic] = id
		} else if _, listed := ids[tp.Topic]; !listed {
			ids[tp.Topic] = [16]byte{}
			unknown = append(unknown, tp.Topic)
		}
	}
	t.mu.Unlock()
	if len(unknown) == 0 {
		return ids, nil
	}
	resp, err := t.metadata(ctx, unknown)
	if err != nil {
		return nil, fmt.Errorf("resolve topic ids: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, rt := range resp.Topics {
		if rt.Topic == nil {
			continue
		}
		if err := kerr.ErrorForCode(rt.ErrorCode); err != nil {
			return nil, fmt.Errorf("resolve topic id of %s: %w", *rt.Topic, err)
		}
		ids[*rt.Topic] = rt.TopicID
		t.topicIDs[*rt.Topic] = rt.TopicID
	}
	for _, name := range unknown {
		if ids[name] == ([16]byte{}) {
			return nil, fmt.Errorf("resolve topic id of %s: no id in metadata", name)
		}
	}
	return ids, nil
}

// isRetriable: coordinator moves and loads, and a transaction coordinator
// still finishing the previous transaction (CONCURRENT_TRANSACTIONS, which
// kerr does not mark retriable but every transactional client retries).
func isRetriable(err error) bool {
	return kerr.IsRetriable(err) || errors.Is(err, kerr.ConcurrentTransactions)
}

// retry runs fn until it succeeds, fails for good, or ctx ends. A Kafka
// error decides by isRetriable; a transport error (no Kafka code) is retried
// too, since every call retried here is idempotent at the same producer epoch.
func retry(ctx context.Context, what string, fn func() error) error {
	backoff := 50 * time.Millisecond
	const maxBackoff = time.Second
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil {
			return nil
		}
		var ke *kerr.Error
		if errors.As(err, &ke) && !isRetriable(err) {
			return fmt.Errorf("%s: %w", what, err)
		}
		if attempt >= 10 {
			return fmt.Errorf("%s: after %d attempts: %w", what, attempt, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", what, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// metadata asks the cluster about the named topics (their ids and
// partition leaders), for the caches that missed them.
func (t *transport) metadata(ctx context.Context, topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, name := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, t.cl)
}

// lastSent are the answered TxnShareAcknowledge requests of the last send.
func (t *transport) lastSent() []SentRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.sent)
}
