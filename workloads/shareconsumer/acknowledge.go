package shareconsumer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AckResult is the outcome of one partition's acknowledgements.
type AckResult struct {
	Topic     string
	Partition int32
	// Acks are the coalesced ranges sent for the partition.
	Acks []Ack
	// Err is nil when the broker applied every range. INVALID_RECORD_STATE
	// means some offset was not acquired by this member any more (its lock
	// expired, its session closed, or it was never ours); a transport error
	// leaves the outcome unknown.
	Err error
}

// Acknowledge sends acks with ShareAcknowledge, one request per broker
// leading the acks' partitions. It returns a result per partition, and a
// non-nil error (all failures joined) whenever any partition's acks were not
// applied: a rejected ack is never reported as success.
//
// Acks go to the partition's current leader, in this member's share session
// there; if none is open (never fetched there, or reset) an empty one is
// opened first, which acquires nothing.
func (c *Consumer) Acknowledge(ctx context.Context, acks []Ack) ([]AckResult, error) {
	if c.isClosed() {
		return nil, ErrClosed
	}
	byPart := map[partitionKey][]Ack{}
	for _, a := range acks {
		k := partitionKey{a.Topic, a.Partition}
		byPart[k] = append(byPart[k], a)
	}
	keys := slices.SortedFunc(maps.Keys(byPart), func(a, b partitionKey) int {
		if a.topic != b.topic {
			if a.topic < b.topic {
				return -1
			}
			return 1
		}
		return int(a.partition) - int(b.partition)
	})

	var results []AckResult
	byNode := map[int32][]int{} // node -> indexes into results
	for _, k := range keys {
		r := AckResult{Topic: k.topic, Partition: k.partition}
		r.Acks, r.Err = coalesce(byPart[k])
		if r.Err == nil {
			r.Err = c.route(k, &byNode, len(results))
		}
		results = append(results, r)
	}
	for _, node := range slices.Sorted(maps.Keys(byNode)) {
		s := c.session(node)
		s.mu.Lock()
		c.acknowledgeOn(ctx, s, results, byNode[node])
		s.mu.Unlock()
	}
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return results, errors.Join(errs...)
}

// route files a partition's result under its leader.
func (c *Consumer) route(k partitionKey, byNode *map[int32][]int, idx int) error {
	id, ok := c.meta.id(k.topic)
	if !ok {
		return fmt.Errorf("acknowledge %s/%d: unknown topic", k.topic, k.partition)
	}
	node, ok := c.meta.leader(topicPartition{id, k.partition})
	if !ok {
		c.meta.markStale()
		return fmt.Errorf("acknowledge %s/%d: no known leader", k.topic, k.partition)
	}
	(*byNode)[node] = append((*byNode)[node], idx)
	return nil
}

// acknowledgeOn sends the results' acks (idx into results) in one
// ShareAcknowledge on s and fills in each result's Err. The caller holds s.mu.
func (c *Consumer) acknowledgeOn(ctx context.Context, s *session, results []AckResult, idx []int) {
	fail := func(err error) {
		for _, i := range idx {
			results[i].Err = fmt.Errorf("acknowledge %s/%d: %w", results[i].Topic, results[i].Partition, err)
		}
	}
	if s.epoch == 0 {
		// Acks at epoch 0 are refused; a ShareFetch for no partitions
		// opens the session without acquiring anything.
		if _, err := c.fetch(ctx, s, nil, c.fullFetch()); err != nil {
			fail(fmt.Errorf("open share session on broker %d: %w", s.node, err))
			return
		}
	}
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID = kmsg.StringPtr(c.cfg.Group)
	req.MemberID = kmsg.StringPtr(c.cfg.MemberID)
	req.ShareSessionEpoch = s.epoch
	tpOf := map[int]topicPartition{}
	for _, i := range idx {
		r := results[i]
		id, _ := c.meta.id(r.Topic)
		tp := topicPartition{id, r.Partition}
		tpOf[i] = tp
		p := kmsg.NewShareAcknowledgeRequestTopicPartition()
		p.Partition = r.Partition
		for _, a := range r.Acks {
			if a.Type == Renew {
				req.IsRenewAck = true
			}
			b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
			b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = a.FirstOffset, a.LastOffset, []int8{int8(a.Type)}
			p.AcknowledgementBatches = append(p.AcknowledgementBatches, b)
		}
		ti := slices.IndexFunc(req.Topics, func(t kmsg.ShareAcknowledgeRequestTopic) bool { return t.TopicID == id })
		if ti < 0 {
			t := kmsg.NewShareAcknowledgeRequestTopic()
			t.TopicID = id
			req.Topics = append(req.Topics, t)
			ti = len(req.Topics) - 1
		}
		req.Topics[ti].Partitions = append(req.Topics[ti].Partitions, p)
	}

	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	kresp, err := c.cl.Broker(int(s.node)).Request(rctx, req)
	if err != nil {
		s.reset()
		c.meta.markStale()
		fail(fmt.Errorf("share acknowledge to broker %d: %w", s.node, err))
		return
	}
	resp := kresp.(*kmsg.ShareAcknowledgeResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		s.reset()
		fail(fmt.Errorf("share acknowledge to broker %d: %w%s", s.node, err, message(resp.ErrorMessage)))
		return
	}
	s.advance()
	answered := map[topicPartition]kmsg.ShareAcknowledgeResponseTopicPartition{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			answered[topicPartition{t.TopicID, p.Partition}] = p
		}
	}
	for _, i := range idx {
		p, ok := answered[tpOf[i]]
		if !ok {
			results[i].Err = fmt.Errorf("acknowledge %s/%d: broker %d did not answer for the partition", results[i].Topic, results[i].Partition, s.node)
			continue
		}
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			if leaderMoved(err) {
				c.meta.moved(tpOf[i], p.CurrentLeader.LeaderID)
			}
			results[i].Err = fmt.Errorf("acknowledge %s/%d on broker %d: %w%s", results[i].Topic, results[i].Partition, s.node, err, message(p.ErrorMessage))
		}
	}
}
