package kfake

import (
	"time"
)

// shareRecordTxnPending marks a record whose ack is pending in a transaction
// (TxnShareAcknowledge). kfake's own code treats every state it does not know
// as "not available, not acquired, not finished", which is exactly what a
// pending record is: a plain ack of it is INVALID_RECORD_STATE
// (validateAcks), no fetch acquires it (acquireRecords), kfake's lock sweep
// and member departures leave it alone, and the share-partition start offset
// stops at it (advanceSPSO). Only our sweep (policy expire) and the end of
// its transaction move it on. The value is far from kfake's iota states so
// that a new kfake state cannot collide with it; kfake persists it as is.
const shareRecordTxnPending shareRecordState = 64

type (
	// kip1289State is one cluster's KIP-1289 state, owned by Cluster.run
	// like everything else in kfake.
	kip1289State struct {
		policy KIP1289PendingLock
		// txns are the transactions with share acks enlisted, by
		// transactional id (kfake keeps one pidinfo per id, and the id
		// survives an epoch-exhaustion producer id change).
		txns map[string]*shareTxn
		// holders names, for each record in state shareRecordTxnPending,
		// the transactional id whose pending ack holds it.
		holders map[shareRecKey]string
	}

	sharePartKey struct {
		Group     string
		Topic     string
		Partition int32
	}

	shareRecKey struct {
		sharePartKey
		Offset int64
	}

	// shareTxn is one producer transaction's share side: the
	// share-partitions AddShareAcksToTxn enlisted and the acks
	// TxnShareAcknowledge staged.
	shareTxn struct {
		pid   int64
		epoch int16
		parts map[sharePartKey]struct{}
		acks  map[shareRecKey]*pendingShareAck
	}

	pendingShareAck struct {
		ackType int8
		// lapsed: policy expire released the record when its lock
		// expired; the ack no longer holds it.
		lapsed bool
	}
)

// kip1289 returns the cluster's state, created on first use with the
// process-wide default policy. Must be called from run() (or admin).
func (c *Cluster) kip1289() *kip1289State {
	if c.kip == nil {
		c.kip = &kip1289State{
			policy:  kip1289Config().PendingLock,
			txns:    make(map[string]*shareTxn),
			holders: make(map[shareRecKey]string),
		}
	}
	return c.kip
}

// lockLive reports whether a record's acquisition lock still runs.
func (c *Cluster) shareLockLive(sr shareRecord, now time.Time) bool {
	return now.Sub(sr.acquireTime) < time.Duration(c.shareRecordLockDurationMs())*time.Millisecond
}

// kip1289EndTxn settles the share acks of a transaction that ends: hooked
// into pidinfo.endTx, which every commit, abort, timeout abort and fencing
// re-init goes through. Commit materializes the acks; abort returns each
// record to its holder while the lock is live, else releases it (archived at
// the delivery limit).
func (c *Cluster) kip1289EndTxn(pidinf *pidinfo, commit bool) {
	if c.kip == nil || pidinf.txid == "" {
		return
	}
	tx := c.kip.txns[pidinf.txid]
	if tx == nil {
		return
	}
	delete(c.kip.txns, pidinf.txid)
	c.settleShareTxn(pidinf.txid, tx, commit)
}

func (c *Cluster) settleShareTxn(txid string, tx *shareTxn, commit bool) {
	now := time.Now()
	maxDelivery := c.shareMaxDeliveryAttempts()
	touched := make(map[sharePartKey]struct{})
	for rk, a := range tx.acks {
		holds := c.kip.holders[rk] == txid
		if holds {
			delete(c.kip.holders, rk)
		}
		sg := c.shareGroups.get(rk.Group)
		if sg == nil {
			continue
		}
		sp, ok := sg.partitions.getp(rk.Topic, rk.Partition)
		if !ok || rk.Offset < sp.spso {
			continue
		}
		sr, ok := sp.records[rk.Offset]
		if !ok {
			continue
		}
		switch {
		case holds && sr.state == shareRecordTxnPending:
			switch {
			case commit:
				sr = applyShareAck(sr, a.ackType, maxDelivery, sp, rk.Offset)
			case c.shareLockLive(sr, now) && sg.members[sr.acquiredBy] != nil:
				sr.state = shareRecordAcquired
			default:
				sr, _ = sr.release(maxDelivery, sp, rk.Offset)
			}
		case commit && a.lapsed && (sr.state == shareRecordAvailable || sr.state == shareRecordAcquired):
			// Policy expire, the KIP as written: the record was
			// released and maybe acquired again, yet the
			// transaction that consumed it commits. A later ack by
			// the new holder then fails with INVALID_RECORD_STATE.
			if a.ackType == shareAckRelease {
				continue
			}
			sr = applyShareAck(sr, a.ackType, maxDelivery, sp, rk.Offset)
		default:
			continue // finalized, or pending in another transaction
		}
		sp.records[rk.Offset] = sr
		touched[rk.sharePartKey] = struct{}{}
	}
	c.afterShareRecordChange(touched)
}

// applyShareAck finalizes a record as an ack of ackType does (accept,
// release, reject: the only types a transaction may carry).
func applyShareAck(sr shareRecord, ackType int8, maxDelivery int32, sp *sharePartition, offset int64) shareRecord {
	switch ackType {
	case shareAckAccept:
		sr.state = shareRecordAcknowledged
		sr.acquiredBy = ""
	case shareAckReject:
		sr.state = shareRecordArchived
		sr.acquiredBy = ""
	default:
		sr, _ = sr.release(maxDelivery, sp, offset)
	}
	return sr
}

// afterShareRecordChange advances the start offsets of the touched
// share-partitions and wakes fetches waiting on them.
func (c *Cluster) afterShareRecordChange(touched map[sharePartKey]struct{}) {
	for k := range touched {
		if sg := c.shareGroups.get(k.Group); sg != nil {
			if sp, ok := sg.partitions.getp(k.Topic, k.Partition); ok {
				sp.advanceSPSO()
			}
		}
		if pd, ok := c.data.tps.getp(k.Topic, k.Partition); ok {
			pd.fireShareWatchers()
		}
	}
}

// kip1289SweepPending is policy expire's lock sweep, hooked into kfake's: a
// pending record whose lock expired is released (archived at the delivery
// limit) and its ack no longer holds it.
func (c *Cluster) kip1289SweepPending() {
	if c.kip == nil || c.kip.policy != KIP1289PendingLockExpire || len(c.kip.holders) == 0 {
		return
	}
	now := time.Now()
	maxDelivery := c.shareMaxDeliveryAttempts()
	touched := make(map[sharePartKey]struct{})
	for rk, txid := range c.kip.holders {
		sg := c.shareGroups.get(rk.Group)
		if sg == nil {
			continue
		}
		sp, ok := sg.partitions.getp(rk.Topic, rk.Partition)
		if !ok {
			continue
		}
		sr, ok := sp.records[rk.Offset]
		if !ok || sr.state != shareRecordTxnPending || c.shareLockLive(sr, now) {
			continue
		}
		sr, _ = sr.release(maxDelivery, sp, rk.Offset)
		sp.records[rk.Offset] = sr
		delete(c.kip.holders, rk)
		if tx := c.kip.txns[txid]; tx != nil {
			if a := tx.acks[rk]; a != nil {
				a.lapsed = true
			}
		}
		touched[rk.sharePartKey] = struct{}{}
	}
	c.afterShareRecordChange(touched)
}
