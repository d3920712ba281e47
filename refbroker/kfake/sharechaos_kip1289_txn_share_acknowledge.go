package kfake

import (
	"encoding/base64"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// TxnShareAcknowledge: v0 (KIP-1289, key configurable)
//
// Behavior, modelled on TxnOffsetCommit:
// * Sent to the share coordinator of each share-partition
//   (FindCoordinator type 2, key "group:topicId:partition"); elsewhere
//   NOT_COORDINATOR
// * Accepted only in the producer's open transaction, for share-partitions
//   AddShareAcksToTxn enlisted (else INVALID_TXN_STATE)
// * Each acked record must be ACQUIRED with a live lock (by the named member
//   when the proposed MemberId tag is present); it becomes pending under the
//   transaction. Anything else is INVALID_RECORD_STATE, and one bad record
//   refuses its whole partition
// * A retry in the same transaction is idempotent (the last ack type wins)
// * Proposed amendment, tags 0 and 1: MemberId must be a member of the group
//   (UNKNOWN_MEMBER_ID) at MemberEpoch (FENCED_MEMBER_EPOCH)

func (c *Cluster) handleTxnShareAcknowledge(creq *clientReq, req *wire.TxnShareAcknowledgeRequest) (kmsg.Response, error) {
	if err := c.checkReqVersion(req.Key(), req.Version); err != nil {
		return nil, err
	}
	resp := req.ResponseKind().(*wire.TxnShareAcknowledgeResponse)
	for _, rt := range req.Topics {
		st := wire.TxnShareAcknowledgeResponseTopic{TopicID: rt.TopicID}
		for _, rp := range rt.Partitions {
			st.Partitions = append(st.Partitions, wire.TxnShareAcknowledgeResponsePartition{Partition: rp.Partition})
		}
		resp.Topics = append(resp.Topics, st)
	}
	doneall := func(code int16) (kmsg.Response, error) {
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				resp.Topics[i].Partitions[j].ErrorCode = code
			}
		}
		return resp, nil
	}

	if e := c.deny(creq, req.TransactionalID, kmsg.ACLResourceTypeTransactionalId, kmsg.ACLOperationWrite, faultKey{txnID: req.TransactionalID}); e != nil {
		return doneall(e.Code)
	}
	if e := c.deny(creq, req.GroupID, kmsg.ACLResourceTypeGroup, kmsg.ACLOperationRead, faultKey{txnID: req.TransactionalID, group: req.GroupID}); e != nil {
		return doneall(e.Code)
	}
	pidinf := c.pids.getpid(req.ProducerID)
	if pidinf == nil || pidinf.txid == "" || pidinf.txid != req.TransactionalID {
		return doneall(kerr.InvalidProducerIDMapping.Code)
	}
	switch {
	case req.ProducerEpoch < pidinf.epoch:
		return doneall(kerr.ProducerFenced.Code)
	case req.ProducerEpoch > pidinf.epoch:
		return doneall(kerr.InvalidProducerEpoch.Code)
	}
	k := c.kip1289()
	tx := k.txns[pidinf.txid]
	if !pidinf.inTx || tx == nil || tx.pid != pidinf.id || tx.epoch != pidinf.epoch {
		return doneall(kerr.InvalidTxnState.Code)
	}
	sg := c.shareGroups.get(req.GroupID)
	if sg == nil {
		return doneall(kerr.GroupIDNotFound.Code)
	}
	var member *string
	if req.MemberID != nil {
		m := sg.members[*req.MemberID]
		if m == nil {
			return doneall(kerr.UnknownMemberID.Code)
		}
		if req.MemberEpoch != nil && *req.MemberEpoch != m.memberEpoch {
			return doneall(kerr.FencedMemberEpoch.Code)
		}
		member = req.MemberID
	}

	now := time.Now()
	staged := 0 // share-partitions staged, for the deliberate defect
	for i, rt := range req.Topics {
		topic := c.data.id2t[rt.TopicID]
		for j, rp := range rt.Partitions {
			out := &resp.Topics[i].Partitions[j]
			if topic == "" {
				out.ErrorCode = kerr.UnknownTopicID.Code
				continue
			}
			if e := c.deny(creq, topic, kmsg.ACLResourceTypeTopic, kmsg.ACLOperationRead,
				faultKey{txnID: req.TransactionalID, group: req.GroupID, topic: topic, topicID: rt.TopicID}.part(rp.Partition)); e != nil {
				out.ErrorCode = e.Code
				continue
			}
			if c.coordinator(shareCoordinatorKey(req.GroupID, rt.TopicID, rp.Partition)) != creq.cc.b {
				out.ErrorCode = kerr.NotCoordinator.Code
				continue
			}
			pd, ok := c.data.tps.getp(topic, rp.Partition)
			if !ok {
				out.ErrorCode = kerr.UnknownTopicOrPartition.Code
				continue
			}
			pk := sharePartKey{Group: req.GroupID, Topic: topic, Partition: rp.Partition}
			if _, enlisted := tx.parts[pk]; !enlisted {
				out.ErrorCode = kerr.InvalidTxnState.Code
				continue
			}
			if staged > 0 && kip1289Config().Broken == KIP1289BrokenStageFirstPartitionOnly {
				continue // answered success, staged nothing: the defect
			}
			out.ErrorCode = c.stageShareAcks(pidinf.txid, tx, sg.getSharePartition(topic, rp.Partition, pd), pk, rp.AcknowledgementBatches, member, now)
			staged++
		}
	}
	return resp, nil
}

// stageShareAcks validates every batch of one share-partition, then makes its
// records pending under the transaction: all or nothing.
func (c *Cluster) stageShareAcks(txid string, tx *shareTxn, sp *sharePartition, pk sharePartKey, batches []wire.AcknowledgementBatch, member *string, now time.Time) int16 {
	prevEnd := int64(-1)
	for _, b := range batches {
		switch {
		case b.FirstOffset < 0 || b.FirstOffset > b.LastOffset || b.FirstOffset <= prevEnd:
			return kerr.InvalidRequest.Code
		case b.AcknowledgeType != shareAckAccept && b.AcknowledgeType != shareAckRelease && b.AcknowledgeType != shareAckReject:
			return kerr.InvalidRequest.Code
		}
		prevEnd = b.LastOffset
		for o := b.FirstOffset; o <= b.LastOffset; o++ {
			rk := shareRecKey{sharePartKey: pk, Offset: o}
			sr, ok := sp.records[o]
			switch {
			case !ok || o < sp.spso:
				return kerr.InvalidRecordState.Code
			case member != nil && sr.acquiredBy != *member:
				return kerr.InvalidRecordState.Code
			case sr.state == shareRecordTxnPending && c.kip.holders[rk] == txid:
				// A retry within the same transaction.
			case sr.state == shareRecordAcquired && c.shareLockLive(sr, now):
			default:
				return kerr.InvalidRecordState.Code
			}
		}
	}
	for _, b := range batches {
		for o := b.FirstOffset; o <= b.LastOffset; o++ {
			rk := shareRecKey{sharePartKey: pk, Offset: o}
			sr := sp.records[o]
			sr.state = shareRecordTxnPending
			sp.records[o] = sr
			c.kip.holders[rk] = txid
			tx.acks[rk] = &pendingShareAck{ackType: b.AcknowledgeType}
		}
	}
	return 0
}

// shareCoordinatorKey is KIP-932's share coordinator key, the topic id in
// Kafka's Uuid.toString form, as FindCoordinator type 2 takes it.
func shareCoordinatorKey(group string, topicID [16]byte, partition int32) string {
	return group + ":" + base64.RawURLEncoding.EncodeToString(topicID[:]) + ":" + strconv.Itoa(int(partition))
}
