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

// errSessionReset says the broker no longer knows the share session (or its
// epoch): the session was reset and the fetch may be sent again at epoch 0.
var errSessionReset = errors.New("share session reset")

// fetch sends one ShareFetch on s for the partitions want (all led by s's
// broker) and returns the records it acquired. The caller holds s.mu.
//
// At epoch 0 the request lists every wanted partition and opens the
// session; later ones list only partitions new to the session and forget
// those no longer wanted (revoked, or moved to another leader). Pending gap
// offsets ride along as GAP acknowledgements.
func (c *Consumer) fetch(ctx context.Context, s *session, want map[topicPartition]struct{}, lim fetchLimit) ([]*Record, error) {
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID = kmsg.StringPtr(c.cfg.Group)
	req.MemberID = kmsg.StringPtr(c.cfg.MemberID)
	req.ShareSessionEpoch = s.epoch
	req.MaxWaitMillis = int32(lim.wait.Milliseconds())
	req.MinBytes = 1
	req.MaxBytes = c.cfg.MaxBytes
	req.MaxRecords = lim.records
	req.BatchSize = lim.records
	if !c.cfg.BatchOptimized {
		req.ShareAcquireMode = 1 // KIP-1206 record limit; dropped on v1, where there is no choice
	}

	// list adds a partition to the request once. The pointer it returns is
	// good until the next partition is listed (the slice may grow).
	list := func(tp topicPartition) *kmsg.ShareFetchRequestTopicPartition {
		if p := findPartition(req, tp); p != nil {
			return p
		}
		ti := slices.IndexFunc(req.Topics, func(t kmsg.ShareFetchRequestTopic) bool { return t.TopicID == tp.id })
		if ti < 0 {
			t := kmsg.NewShareFetchRequestTopic()
			t.TopicID = tp.id
			req.Topics = append(req.Topics, t)
			ti = len(req.Topics) - 1
		}
		p := kmsg.NewShareFetchRequestTopicPartition()
		p.Partition = tp.partition
		p.PartitionMaxBytes = c.cfg.PartitionMaxBytes
		req.Topics[ti].Partitions = append(req.Topics[ti].Partitions, p)
		ps := req.Topics[ti].Partitions
		return &ps[len(ps)-1]
	}
	var forget []topicPartition
	for _, tp := range sortedParts(want) {
		if _, in := s.parts[tp]; s.epoch == 0 || !in {
			list(tp)
		}
	}
	if s.epoch > 0 {
		for _, tp := range sortedParts(s.parts) {
			if _, ok := want[tp]; !ok {
				forget = append(forget, tp)
			}
		}
		for _, tp := range sortedParts(s.gaps) {
			// A gap of a partition no longer wanted is dropped rather than
			// listed: listing would add the partition back to the session
			// and acquire records for it. Its lock expires instead.
			if _, ok := want[tp]; !ok {
				continue
			}
			p := list(tp)
			for _, g := range gapAcks(s.gaps[tp]) {
				c.gapsSent.Add(g.last - g.first + 1)
				b := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
				b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = g.first, g.last, []int8{int8(Gap)}
				p.AcknowledgementBatches = append(p.AcknowledgementBatches, b)
			}
		}
	}
	clear(s.gaps)
	for _, tp := range forget {
		i := slices.IndexFunc(req.ForgottenTopicsData, func(f kmsg.ShareFetchRequestForgottenTopicsData) bool { return f.TopicID == tp.id })
		if i < 0 {
			f := kmsg.NewShareFetchRequestForgottenTopicsData()
			f.TopicID = tp.id
			req.ForgottenTopicsData = append(req.ForgottenTopicsData, f)
			i = len(req.ForgottenTopicsData) - 1
		}
		req.ForgottenTopicsData[i].Partitions = append(req.ForgottenTopicsData[i].Partitions, tp.partition)
	}

	// The deadline covers the broker's MaxWait on top of the request
	// timeout, so an empty long poll is not mistaken for a dead broker.
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout+lim.wait)
	defer cancel()
	kresp, err := c.cl.Broker(int(s.node)).Request(rctx, req)
	if err != nil {
		// Whether the broker applied the request is unknown, and the
		// connection carrying the session may be gone: start over.
		s.reset()
		c.meta.markStale()
		return nil, fmt.Errorf("share fetch from broker %d: %w", s.node, err)
	}
	resp := kresp.(*kmsg.ShareFetchResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		s.reset()
		if errors.Is(err, kerr.ShareSessionNotFound) || errors.Is(err, kerr.InvalidShareSessionEpoch) {
			return nil, fmt.Errorf("share fetch from broker %d: %w: %w", s.node, errSessionReset, err)
		}
		return nil, fmt.Errorf("share fetch from broker %d: %w%s", s.node, err, message(resp.ErrorMessage))
	}
	if s.epoch == 0 {
		clear(s.parts)
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			s.parts[topicPartition{t.TopicID, p.Partition}] = struct{}{}
		}
	}
	for _, tp := range forget {
		delete(s.parts, tp)
	}
	s.advance()
	return c.records(s, resp)
}

// records turns a ShareFetch response into records, collecting gaps into s
// and partition errors into the returned error. Records come back even when
// the error is non-nil: they are acquired and the caller must know them.
func (c *Consumer) records(s *session, resp *kmsg.ShareFetchResponse) ([]*Record, error) {
	var recs []*Record
	var errs []error
	for _, t := range resp.Topics {
		name, known := c.meta.name(t.TopicID)
		for _, p := range t.Partitions {
			tp := topicPartition{t.TopicID, p.Partition}
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				if leaderMoved(err) {
					c.meta.moved(tp, p.CurrentLeader.LeaderID)
					continue
				}
				errs = append(errs, fmt.Errorf("share fetch %s/%d from broker %d: %w%s", name, p.Partition, s.node, err, message(p.ErrorMessage)))
				continue
			}
			if len(p.AcquiredRecords) == 0 {
				continue
			}
			if !known {
				// Cannot happen for partitions we asked for, whose names
				// we resolved first; the acquired records expire.
				c.meta.markStale()
				errs = append(errs, fmt.Errorf("share fetch from broker %d: records of unknown topic id %x", s.node, t.TopicID))
				continue
			}
			decoded, covered, err := decodeBatches(p.Records)
			if err != nil {
				errs = append(errs, fmt.Errorf("share fetch %s/%d from broker %d: %w", name, p.Partition, s.node, err))
			}
			acquired := make([]offsetRange, len(p.AcquiredRecords))
			for i, a := range p.AcquiredRecords {
				acquired[i] = offsetRange{a.FirstOffset, a.LastOffset}
			}
			have := map[int64]struct{}{}
			for _, d := range decoded {
				i := slices.IndexFunc(acquired, func(a offsetRange) bool { return a.first <= d.offset && d.offset <= a.last })
				if i < 0 {
					continue // not acquired by us: another member's, or already settled
				}
				if _, dup := have[d.offset]; dup {
					continue
				}
				have[d.offset] = struct{}{}
				recs = append(recs, &Record{
					Topic: name, TopicID: t.TopicID, Partition: p.Partition, Offset: d.offset,
					DeliveryCount: p.AcquiredRecords[i].DeliveryCount, Broker: s.node,
					Key: d.key, Value: d.value, Headers: d.headers, Timestamp: d.timestamp,
					LeaderEpoch: d.leaderEpoch, ProducerID: d.producerID, ProducerEpoch: d.producerEpoch,
					Transactional: d.transactional,
				})
			}
			if gaps := gapsOf(acquired, covered, have); len(gaps) > 0 {
				s.gaps[tp] = append(s.gaps[tp], gaps...)
			}
		}
	}
	return recs, errors.Join(errs...)
}

// leaderMoved reports partition errors that mean the partition must be
// fetched elsewhere: after a metadata refresh the next Poll forgets it here
// and adds it to the new leader's session.
func leaderMoved(err error) bool {
	return errors.Is(err, kerr.NotLeaderForPartition) || errors.Is(err, kerr.FencedLeaderEpoch) ||
		errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID) ||
		errors.Is(err, kerr.KafkaStorageError) || errors.Is(err, kerr.LeaderNotAvailable)
}

func findPartition(req *kmsg.ShareFetchRequest, tp topicPartition) *kmsg.ShareFetchRequestTopicPartition {
	for i := range req.Topics {
		if req.Topics[i].TopicID != tp.id {
			continue
		}
		for j := range req.Topics[i].Partitions {
			if req.Topics[i].Partitions[j].Partition == tp.partition {
				return &req.Topics[i].Partitions[j]
			}
		}
	}
	return nil
}

// sortedParts orders partitions so requests are deterministic.
func sortedParts[V any](m map[topicPartition]V) []topicPartition {
	return slices.SortedFunc(maps.Keys(m), func(a, b topicPartition) int {
		if c := slices.Compare(a.id[:], b.id[:]); c != 0 {
			return c
		}
		return int(a.partition) - int(b.partition)
	})
}
