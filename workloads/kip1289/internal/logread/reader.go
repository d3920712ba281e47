// Package logread reads one partition read_committed up to a target offset
// and knows where it stands. kgo's consumer cannot answer "have I read
// everything below offset T?": it hides control records and aborted batches,
// and returns nothing for a fetch that only moved past them, so a reader that
// stops on seeing offset T-1 can wait forever (T-1 may be a commit marker).
// This reader issues raw Fetch requests and advances its position with
// kgo.ProcessFetchPartition, which counts what it skipped.
package logread

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Partition reads one topic-partition read_committed from a position.
// It is not safe for concurrent use.
type Partition struct {
	cl        *kgo.Client
	topic     string
	partition int32
	pos       int64
	maxWait   time.Duration

	leader  int32 // -1: look it up
	topicID [16]byte
}

// New reads topic/partition from offset from. maxWait bounds each fetch's
// wait on the broker for new committed data (and so how often ReadTo calls
// its idle function); 0 means 250ms.
func New(cl *kgo.Client, topic string, partition int32, from int64, maxWait time.Duration) *Partition {
	if maxWait <= 0 {
		maxWait = 250 * time.Millisecond
	}
	return &Partition{cl: cl, topic: topic, partition: partition, pos: from, maxWait: maxWait, leader: -1}
}

// Position is the next offset to read: every committed record below it has
// been handed out.
func (p *Partition) Position() int64 { return p.pos }

// ReadTo hands every committed data record at offsets [Position, target) to
// fn, in order, and returns once Position >= target. A read_committed fetch
// cannot pass an open transaction, so ReadTo waits for the outcome of every
// transaction that wrote below target. idle, if not nil, runs after each
// fetch that made no progress (a wait behind an open transaction).
func (p *Partition) ReadTo(ctx context.Context, target int64, fn func(*kgo.Record) error, idle func()) error {
	for p.pos < target {
		progressed, err := p.fetch(ctx, fn)
		if err != nil {
			return fmt.Errorf("read %s/%d to %d (at %d): %w", p.topic, p.partition, target, p.pos, err)
		}
		if !progressed {
			if idle != nil {
				idle()
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("read %s/%d to %d (at %d): %w", p.topic, p.partition, target, p.pos, err)
			}
		}
	}
	return nil
}

// fetch issues one Fetch and applies what it returned.
func (p *Partition) fetch(ctx context.Context, fn func(*kgo.Record) error) (progressed bool, err error) {
	if p.leader < 0 {
		if err := p.lookup(ctx); err != nil {
			return false, err
		}
	}
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = int32(p.maxWait / time.Millisecond)
	req.MinBytes = 1
	req.MaxBytes = 4 << 20
	req.IsolationLevel = 1 // read_committed
	req.SessionEpoch = -1  // no fetch session: every fetch is complete in itself
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = p.topic, p.topicID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition = p.partition
	rp.FetchOffset = p.pos
	rp.CurrentLeaderEpoch = -1
	rp.LogStartOffset = -1
	rp.PartitionMaxBytes = 4 << 20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)

	resp, err := req.RequestWith(ctx, p.cl.Broker(int(p.leader)))
	if err != nil {
		p.leader = -1 // the connection or the broker may be gone: look again
		return false, retriable(ctx, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		p.leader = -1
		return false, retriable(ctx, err)
	}
	part := p.find(resp)
	if part == nil {
		return false, errors.New("partition missing from the fetch response")
	}
	switch err := kerr.ErrorForCode(part.ErrorCode); {
	case err == nil:
	case errors.Is(err, kerr.OffsetOutOfRange) && part.LogStartOffset > p.pos:
		// Retention deleted what we had not read; nothing below the log
		// start can be read by anyone any more.
		p.pos = part.LogStartOffset
		return true, nil
	case kerr.IsRetriable(err):
		p.leader = -1
		return false, retriable(ctx, err)
	default:
		return false, err
	}
	fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
		Offset:         p.pos,
		IsolationLevel: kgo.ReadCommitted(),
		Topic:          p.topic,
		Partition:      p.partition,
	}, part, kgo.DefaultDecompressor(), nil)
	for _, r := range fp.Records {
		if r.Offset < p.pos {
			continue
		}
		if err := fn(r); err != nil {
			return false, err
		}
	}
	if fp.Err != nil && next <= p.pos {
		return false, fmt.Errorf("process fetch: %w", fp.Err)
	}
	progressed = next > p.pos
	if progressed {
		p.pos = next
	}
	return progressed, nil
}

func (p *Partition) find(resp *kmsg.FetchResponse) *kmsg.FetchResponseTopicPartition {
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if t.Topic != p.topic && t.TopicID != p.topicID {
			continue
		}
		for j := range t.Partitions {
			if t.Partitions[j].Partition == p.partition {
				return &t.Partitions[j]
			}
		}
	}
	return nil
}

func (p *Partition) lookup(ctx context.Context) error {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(p.topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, p.cl)
	if err != nil {
		return retriable(ctx, fmt.Errorf("metadata: %w", err))
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != p.topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return retriable(ctx, fmt.Errorf("metadata of %s: %w", p.topic, err))
		}
		for _, part := range t.Partitions {
			if part.Partition != p.partition {
				continue
			}
			if err := kerr.ErrorForCode(part.ErrorCode); err != nil || part.Leader < 0 {
				return retriable(ctx, fmt.Errorf("metadata of %s/%d: leader %d: %v", p.topic, p.partition, part.Leader, err))
			}
			p.leader, p.topicID = part.Leader, t.TopicID
			return nil
		}
	}
	return fmt.Errorf("metadata: %s/%d does not exist", p.topic, p.partition)
}

// retriable pauses briefly and reports no error, so that ReadTo tries again
// (a leader moving, a connection dropping are expected during chaos), unless
// ctx is over.
func retriable(ctx context.Context, err error) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
	case <-time.After(100 * time.Millisecond):
		return nil
	}
}

// EndOffset is the partition's high watermark (read_uncommitted end): every
// record written so far, committed or not, sits below it.
func EndOffset(ctx context.Context, cl *kgo.Client, topic string, partition int32) (int64, error) {
	return listOffset(ctx, cl, topic, partition, -1)
}

// StartOffset is the partition's log start offset.
func StartOffset(ctx context.Context, cl *kgo.Client, topic string, partition int32) (int64, error) {
	return listOffset(ctx, cl, topic, partition, -2)
}

func listOffset(ctx context.Context, cl *kgo.Client, topic string, partition int32, ts int64) (int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	req.IsolationLevel = 0
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition = partition
	rp.CurrentLeaderEpoch = -1
	rp.Timestamp = ts
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	for {
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			for _, t := range resp.Topics {
				for _, p := range t.Partitions {
					if t.Topic != topic || p.Partition != partition {
						continue
					}
					if err = kerr.ErrorForCode(p.ErrorCode); err == nil {
						return p.Offset, nil
					}
				}
			}
			if err == nil {
				err = errors.New("partition missing from the response")
			}
		}
		// A Kafka error that retrying cannot fix ends it; transport errors
		// and leader moves are retried until ctx ends.
		var ke *kerr.Error
		if errors.As(err, &ke) && !kerr.IsRetriable(err) {
			return 0, fmt.Errorf("list offsets of %s/%d: %w", topic, partition, err)
		}
		if rerr := retriable(ctx, err); rerr != nil {
			return 0, fmt.Errorf("list offsets of %s/%d: %w", topic, partition, rerr)
		}
	}
}
