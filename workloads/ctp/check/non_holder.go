package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// staleAck is a committed transactional ack of a record by a worker whose
// delivery of it had been superseded: another worker had acquired a later
// delivery before the ack was sent.
type staleAck struct {
	id       string
	txn      txnRef
	delivery int32 // the acker's delivery
	sentAt   int64 // the txn-acks invoke
	holder   string
	held     int32 // the other worker's (later) delivery
	polled   int64 // its poll ok
	info     *txnInfo
}

// checkAckedByNonHolder finds, in the native realization, records whose ack
// a worker put into a transaction that committed after another worker had
// acquired a later delivery of them: the broker accepted an ack from a
// member that no longer held the acquisition (docs/FINDINGS.md 2). KIP-932's
// ShareAcknowledge is refused there (SharePartition checks the member owns
// the batch); TxnShareAcknowledge as KIP-1289 writes it names no member, so
// a broker cannot refuse it, and the stale holder's transaction decides the
// record while the holder's own work is wasted (its ack is refused in turn).
//
// Certainty: the other worker's poll ok is after the broker handed it the
// record, and the acker's txn-acks invoke is before the broker saw the acks,
// so poll ok < invoke means the acks reached a broker on which the acker's
// acquisition was already gone. Only a transaction whose commit is known to
// have succeeded counts: an aborted one's acks were discarded, and an unknown
// outcome may be either (ORACLE.md, outcomes of operations). Other modes and
// the ledger put no acks into a transaction on the broker, so the check does
// not apply there.
func checkAckedByNonHolder(s *state) *part {
	p := newPart()
	if s.obs.Mode != ctp.Transactional || !kip1289.BrokerSettles(s.obs.Realization) {
		return p
	}
	type polled struct {
		worker   string
		delivery int32
		ts       int64
	}
	// latest is, per record, the newest delivery polled so far, by whom.
	latest := make(map[string]polled)
	// sent are the stale acks of each transaction at its txn-acks invoke;
	// accepted, those whose txn-acks returned ok.
	sent := make(map[txnRef][]staleAck)
	var accepted []staleAck
	for _, e := range s.obs.History {
		if e.F == history.FPoll && e.Type == history.OK {
			for _, r := range e.Records {
				if old, ok := latest[r.ID]; !ok || r.Delivery > old.delivery {
					latest[r.ID] = polled{e.Worker, r.Delivery, e.TS}
				}
			}
			continue
		}
		if e.F != history.FTxnAcks || e.Txn == 0 {
			continue
		}
		t := txnRef{e.Worker, e.Txn}
		switch e.Type {
		case history.Invoke:
			for _, r := range e.Records {
				if l, ok := latest[r.ID]; ok && l.worker != e.Worker && l.delivery > r.Delivery {
					sent[t] = append(sent[t], staleAck{id: r.ID, txn: t, delivery: r.Delivery, sentAt: e.TS,
						holder: l.worker, held: l.delivery, polled: l.ts})
				}
			}
		case history.OK:
			accepted = append(accepted, sent[t]...)
			delete(sent, t)
		}
	}
	var found []staleAck
	seen := make(map[string]bool)
	for _, a := range accepted {
		info := s.txns[a.txn]
		if info == nil || !info.sawCommitOK || seen[a.id] {
			continue
		}
		a.info = info
		seen[a.id] = true
		found = append(found, a)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].id < found[j].id })
	for _, a := range found {
		p.report(verdict.AnomalyAckedByNonHolder, a.id, "", func() string { return s.staleAckSummary(a) })
	}
	return p
}

func (s *state) staleAckSummary(a staleAck) string {
	return fmt.Sprintf("%s put the ack of its delivery %d into its transaction at %s and committed (%s), "+
		"but %s had acquired delivery %d at %s: the broker accepted the ack of a member that no longer held the record",
		a.txn, a.delivery, s.at(a.sentAt), a.info.endedBy, a.holder, a.held, s.at(a.polled))
}
