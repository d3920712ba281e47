package kfake

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// AddShareAcksToTxn: v0 (KIP-1289, key configurable)
//
// Behavior, modelled on AddOffsetsToTxn:
// * Enlists the share-partitions (group, topic, partition) in the producer's
//   transaction and starts the transaction if it is not open yet, so that
//   its timeout covers the pending acks
// * Must precede TxnShareAcknowledge for every share-partition it acks
// * Errors as AddOffsetsToTxn's: NOT_COORDINATOR, INVALID_PRODUCER_ID_MAPPING,
//   PRODUCER_FENCED (older epoch), INVALID_PRODUCER_EPOCH (newer epoch than
//   ours), plus INVALID_GROUP_ID for an empty group and
//   UNKNOWN_TOPIC_OR_PARTITION (nothing enlisted) for a partition we lack

func (c *Cluster) handleAddShareAcksToTxn(creq *clientReq, req *wire.AddShareAcksToTxnRequest) (kmsg.Response, error) {
	if err := c.checkReqVersion(req.Key(), req.Version); err != nil {
		return nil, err
	}
	resp := req.ResponseKind().(*wire.AddShareAcksToTxnResponse)
	fail := func(code int16) (kmsg.Response, error) {
		resp.ErrorCode = code
		return resp, nil
	}

	if e := c.deny(creq, req.TransactionalID, kmsg.ACLResourceTypeTransactionalId, kmsg.ACLOperationWrite, faultKey{txnID: req.TransactionalID}); e != nil {
		return fail(e.Code)
	}
	if e := c.deny(creq, req.GroupID, kmsg.ACLResourceTypeGroup, kmsg.ACLOperationRead, faultKey{txnID: req.TransactionalID, group: req.GroupID}); e != nil {
		return fail(e.Code)
	}
	if req.GroupID == "" {
		return fail(kerr.InvalidGroupID.Code)
	}
	if c.coordinator(req.TransactionalID) != creq.cc.b {
		return fail(kerr.NotCoordinator.Code)
	}
	pidinf := c.pids.getpid(req.ProducerID)
	if pidinf == nil || pidinf.txid == "" || pidinf.txid != req.TransactionalID {
		return fail(kerr.InvalidProducerIDMapping.Code)
	}
	switch {
	case req.ProducerEpoch < pidinf.epoch:
		return fail(kerr.ProducerFenced.Code)
	case req.ProducerEpoch > pidinf.epoch:
		return fail(kerr.InvalidProducerEpoch.Code)
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if !c.data.tps.checkp(t.Topic, p) {
				return fail(kerr.UnknownTopicOrPartition.Code)
			}
		}
	}

	pidinf.maybeStart()
	pidinf.lastActive = creq.at
	k := c.kip1289()
	tx := k.txns[pidinf.txid]
	if tx != nil && (tx.pid != pidinf.id || tx.epoch != pidinf.epoch) {
		// Left over from a transaction that ended without reaching
		// endTx (cannot happen today; defensive): it is over.
		delete(k.txns, pidinf.txid)
		c.settleShareTxn(pidinf.txid, tx, false)
		tx = nil
	}
	if tx == nil {
		tx = &shareTxn{
			pid:   pidinf.id,
			epoch: pidinf.epoch,
			parts: make(map[sharePartKey]struct{}),
			acks:  make(map[shareRecKey]*pendingShareAck),
		}
		k.txns[pidinf.txid] = tx
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			tx.parts[sharePartKey{Group: req.GroupID, Topic: t.Topic, Partition: p}] = struct{}{}
		}
	}
	return resp, nil
}
