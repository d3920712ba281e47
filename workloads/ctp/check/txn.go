package check

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/history"
)

// txnRef names one transaction: a worker incarnation and its sequence number.
type txnRef struct {
	worker string
	seq    int64
}

func (t txnRef) String() string { return fmt.Sprintf("%s txn %d", t.worker, t.seq) }

// txnInfo is what a worker's history says about one of its transactions.
type txnInfo struct {
	sawAbort      bool // abort ok, or commit fail (definitely not committed)
	sawCommitOK   bool
	commitInvoked bool
	// sent are the ids whose outputs the transaction produced (send events).
	sent map[string]struct{}
	// from is, for each sent id, the delivery of the record it processed
	// (the worker's newest poll of it before the send).
	from map[string]delivery
	// commitAt is when the commit was invoked, 0 if never.
	commitAt int64
	// lastAt is when the worker last did something in it (a step, not a
	// fault-fired event, which names the worker's newest transaction even
	// when it fires before the next begin).
	lastAt int64
	// acked are the ids whose acks went into it (txn-acks ok, commit records).
	acked map[string]struct{}
	// txnAcked are the ids a txn-acks ok named: the acks certainly inside
	// the transaction. Every mode's commit event names its batch, so only
	// these tell a native transaction that carried a record's ack from one
	// that committed its output without it.
	txnAcked map[string]struct{}
	// beganAt is when beginTransaction returned, 0 if never seen.
	beganAt int64
	// acksAt is when its acks were first certainly pending (txn-acks ok), 0 if never.
	acksAt int64
	// closedAt is when it stopped being able to commit later: the commit's
	// outcome, or the abort's invoke (a worker that decides to abort never
	// commits that transaction). 0 while the history shows it open.
	closedAt int64
	// closedBy names that event, for examples.
	closedBy string
	// endedBy names the event that decided the outcome (commit ok / fail /
	// info, abort ok), for examples.
	endedBy string
}

// txnOutcome is how a transaction ended, as far as its worker knew.
type txnOutcome int

const (
	// txnUnrecorded: no event names the transaction.
	txnUnrecorded txnOutcome = iota
	// txnNeverCommitted: the worker used it but never invoked commit.
	// Kafka commits only on EndTxn(COMMIT) and a worker records the commit's
	// invoke before sending it, so such a transaction cannot have committed:
	// the broker aborts it (the replacement's InitProducerId, or the timeout).
	txnNeverCommitted
	// txnUnknown: commit invoked, outcome unknown (info, or the worker
	// died waiting). Either outcome is acceptable.
	txnUnknown
	txnCommitted
	// txnAborted: abort ok, or commit fail.
	txnAborted
)

func (t *txnInfo) outcome() txnOutcome {
	switch {
	case t == nil:
		return txnUnrecorded
	case t.sawAbort:
		return txnAborted
	case t.sawCommitOK:
		return txnCommitted
	case t.commitInvoked:
		return txnUnknown
	}
	return txnNeverCommitted
}

func (t *txnInfo) addAcked(recs []history.Rec) { t.acked = addIDs(t.acked, recs) }

// addIDs adds the ids of recs to set, making it when needed.
func addIDs(set map[string]struct{}, recs []history.Rec) map[string]struct{} {
	if len(recs) == 0 {
		return set
	}
	if set == nil {
		set = make(map[string]struct{}, len(recs))
	}
	for _, r := range recs {
		set[r.ID] = struct{}{}
	}
	return set
}
