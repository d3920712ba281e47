package kfake

import (
	"path/filepath"
	"time"
)

// Pending share acks survive a graceful restart as kfake's other in-flight
// transaction state does: kfake saves in-progress transactions and share
// records (a pending record keeps its state value) in session_state.json on
// Close and restores them on start; we save the transactions' share side
// beside it. Like session_state.json the file is removed once loaded, so a
// crash restart never revives stale acks (kfake loses share-group progress
// on a crash anyway: it keeps it only in the session state).
const kip1289StateFile = "kip1289_state.json"

type (
	kip1289Persisted struct {
		Txns []kip1289PersistedTxn `json:"txns,omitempty"`
	}
	kip1289PersistedTxn struct {
		TxnID string                `json:"txid"`
		PID   int64                 `json:"pid"`
		Epoch int16                 `json:"epoch"`
		Parts []sharePartKey        `json:"parts,omitempty"`
		Acks  []kip1289PersistedAck `json:"acks,omitempty"`
	}
	kip1289PersistedAck struct {
		Group     string `json:"g"`
		Topic     string `json:"t"`
		Partition int32  `json:"p"`
		Offset    int64  `json:"o"`
		AckType   int8   `json:"a"`
		Lapsed    bool   `json:"l,omitempty"`
		Held      bool   `json:"h,omitempty"`
		// AcquiredAt is the record's lock start, which kfake does not
		// persist; without it a restored pending record's lock would
		// count as expired at once.
		AcquiredAt time.Time `json:"at,omitzero"`
	}
)

// kip1289Save is hooked into saveSessionState (graceful Close only).
func (c *Cluster) kip1289Save() {
	path := filepath.Join(c.cfg.dataDir, kip1289StateFile)
	if c.kip == nil || len(c.kip.txns) == 0 {
		c.fs.Remove(path)
		return
	}
	var st kip1289Persisted
	for txid, tx := range c.kip.txns {
		pt := kip1289PersistedTxn{TxnID: txid, PID: tx.pid, Epoch: tx.epoch}
		for pk := range tx.parts {
			pt.Parts = append(pt.Parts, pk)
		}
		for rk, a := range tx.acks {
			pa := kip1289PersistedAck{
				Group: rk.Group, Topic: rk.Topic, Partition: rk.Partition, Offset: rk.Offset,
				AckType: a.ackType, Lapsed: a.lapsed, Held: c.kip.holders[rk] == txid,
			}
			if sr, ok := c.shareRecord(rk); ok {
				pa.AcquiredAt = sr.acquireTime
			}
			pt.Acks = append(pt.Acks, pa)
		}
		st.Txns = append(st.Txns, pt)
	}
	if err := writeJSONFile(c.fs, path, st); err != nil {
		c.cfg.logger.Logf(LogLevelError, "kip1289: save pending share acks: %v", err)
	}
}

// kip1289Load is hooked into loadFromDisk after loadSessionState, which has
// restored the share records and the in-progress transactions (and aborted
// those that timed out during the outage). A transaction that is no longer
// in progress at the same producer id and epoch is aborted here.
func (c *Cluster) kip1289Load() {
	path := filepath.Join(c.cfg.dataDir, kip1289StateFile)
	var st kip1289Persisted
	found, err := readJSONFile(c.fs, path, &st)
	if err != nil {
		c.cfg.logger.Logf(LogLevelWarn, "kip1289: load pending share acks: %v", err)
	}
	if !found || err != nil {
		return
	}
	defer c.fs.Remove(path)
	k := c.kip1289()
	for _, pt := range st.Txns {
		tx := &shareTxn{
			pid:   pt.PID,
			epoch: pt.Epoch,
			parts: make(map[sharePartKey]struct{}, len(pt.Parts)),
			acks:  make(map[shareRecKey]*pendingShareAck, len(pt.Acks)),
		}
		for _, pk := range pt.Parts {
			tx.parts[pk] = struct{}{}
		}
		for _, pa := range pt.Acks {
			rk := shareRecKey{sharePartKey{Group: pa.Group, Topic: pa.Topic, Partition: pa.Partition}, pa.Offset}
			tx.acks[rk] = &pendingShareAck{ackType: pa.AckType, lapsed: pa.Lapsed}
			if !pa.Held {
				continue
			}
			k.holders[rk] = pt.TxnID
			if sg := c.shareGroups.get(rk.Group); sg != nil {
				if sp, ok := sg.partitions.getp(rk.Topic, rk.Partition); ok {
					if sr, ok := sp.records[rk.Offset]; ok && sr.state == shareRecordTxnPending {
						sr.acquireTime = pa.AcquiredAt
						sp.records[rk.Offset] = sr
					}
				}
			}
		}
		pidinf := c.pids.findTxnID(pt.TxnID)
		if pidinf == nil || !pidinf.inTx || pidinf.id != pt.PID || pidinf.epoch != pt.Epoch {
			c.cfg.logger.Logf(LogLevelInfo, "kip1289: transaction %s ended during the restart: aborting its share acks", pt.TxnID)
			c.settleShareTxn(pt.TxnID, tx, false)
			continue
		}
		k.txns[pt.TxnID] = tx
	}
}

func (c *Cluster) shareRecord(rk shareRecKey) (shareRecord, bool) {
	sg := c.shareGroups.get(rk.Group)
	if sg == nil {
		return shareRecord{}, false
	}
	sp, ok := sg.partitions.getp(rk.Topic, rk.Partition)
	if !ok {
		return shareRecord{}, false
	}
	sr, ok := sp.records[rk.Offset]
	return sr, ok
}
