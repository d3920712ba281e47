package ctp

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A partition whose records past the read position are all aborted or
// control records never shows up in the client's fetches: kgo buffers a
// fetch only when it carries a record or an error, so the stable offset
// those fetches report never reaches the read-back, which then waited out
// readStall and failed although everything visible had been read (the
// commit-unchecked mutant: its last produces, sent after its commit, join a
// transaction the broker opens for them and aborts at its timeout, leaving
// an aborted tail on every output partition). The read-back therefore
// asks the broker itself, by a fetch of its own, what lies between its
// position and the partition's end.

// tailProbeAfter is how long a read-back stays quiet before it probes the
// unstable partitions' tails (and how often it probes again).
const tailProbeAfter = 2 * time.Second

// invisibleTails reports, for each partition p of topic not yet stable,
// whether every record in [from[p], end[p]) is invisible at the isolation
// level (aborted, or a control record): the read-back has then read all
// there is. A visible record, a fetch that advances nothing, or a fetch
// error answers false: the client itself must still bring what is there.
// One metadata request serves every partition of the round.
func invisibleTails(ctx context.Context, cl *kgo.Client, topic string, from, end map[int32]int64, stable map[int32]bool, readCommitted bool) map[int32]bool {
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	md, err := kadm.NewClient(cl).Metadata(pctx, topic)
	if err != nil {
		return nil
	}
	t, ok := md.Topics[topic]
	if !ok || t.Err != nil {
		return nil
	}
	done := map[int32]bool{}
	for partition, e := range end {
		p, ok := t.Partitions[partition]
		if stable[partition] || !ok || p.Err != nil || p.Leader < 0 {
			continue
		}
		done[partition] = invisibleTail(pctx, cl, p.Leader, topic, [16]byte(t.ID), partition, from[partition], e, readCommitted)
	}
	return done
}

// invisibleTail is invisibleTails for one partition led by leader.
func invisibleTail(ctx context.Context, cl *kgo.Client, leader int32, topic string, id [16]byte, partition int32, from, end int64, readCommitted bool) bool {
	iso := kgo.ReadUncommitted()
	if readCommitted {
		iso = kgo.ReadCommitted()
	}
	for off := from; off < end; {
		rp, err := fetchOne(ctx, cl, leader, topic, id, partition, off, readCommitted)
		if err != nil {
			return false
		}
		fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Offset: off, IsolationLevel: iso, Topic: topic, Partition: partition},
			rp, kgo.DefaultDecompressor(), nil)
		if fp.Err != nil || len(fp.Records) > 0 || next <= off {
			return false
		}
		off = next
	}
	return true
}

// fetchOne is one Fetch of one partition at offset from its leader,
// without waiting for data.
func fetchOne(ctx context.Context, cl *kgo.Client, leader int32, topic string, id [16]byte, partition int32, offset int64, readCommitted bool) (*kmsg.FetchResponseTopicPartition, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MaxBytes = -1, 0, 4<<20
	if readCommitted {
		req.IsolationLevel = 1
	}
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = topic, id
	rpq := kmsg.NewFetchRequestTopicPartition()
	rpq.Partition, rpq.FetchOffset, rpq.PartitionMaxBytes, rpq.CurrentLeaderEpoch, rpq.LogStartOffset = partition, offset, 4<<20, -1, -1
	rt.Partitions = append(rt.Partitions, rpq)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl.Broker(int(leader)))
	if err != nil {
		return nil, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			rp := &resp.Topics[i].Partitions[j]
			if rp.Partition == partition {
				if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
					return nil, err
				}
				return rp, nil
			}
		}
	}
	return nil, fmt.Errorf("fetch %s/%d: not answered", topic, partition)
}
