package check_test

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// staleAckCell is lock-expiry-stale-acks as the workers record it: w1.1
// holds its batch past the lock, w2.1 re-acquires it (delivery 2) and holds
// it in turn, w1.1 then puts its acks into its transaction; accepted says
// whether the broker took them (no member tags) or refused them (tags).
func staleAckCell(realization string, accepted bool, outcome history.Type) *checkCell {
	c := newCheckCell(ctp.Transactional, realization, 3)
	w1, w2 := c.worker("w1.1"), c.worker("w2.1")
	recs := w1.poll(1, checkSpan(0, 3)...)
	w1.faultAction("lock-expiry-stale-acks", ctp.PointBeforeBegin, ctp.ActionStallOverlap)
	held := w2.poll(2, checkSpan(0, 3)...)
	w2.faultAction("lock-expiry-stale-acks", ctp.PointBeforeBegin, ctp.ActionHoldRedelivered)
	txn := w1.begin()
	w1.send(recs)
	w1.add(history.Event{Type: history.Invoke, F: history.FTxnAcks, Txn: txn, Records: recs})
	if !accepted {
		w1.add(history.Event{Type: history.Fail, F: history.FTxnAcks, Txn: txn, Error: "INVALID_RECORD_STATE"})
		w1.abort()
		w2.commitBatch(held)
		w2.acceptAfterCommit(held)
		return c
	}
	w1.add(history.Event{Type: history.OK, F: history.FTxnAcks, Txn: txn, Records: recs})
	w1.commit(recs, outcome)
	if outcome == history.OK {
		w1.outputs(txn, recs)
	}
	// The holder's own acks are refused now: it aborts.
	t2 := w2.begin()
	w2.send(held)
	w2.add(history.Event{Type: history.Invoke, F: history.FTxnAcks, Txn: t2, Records: held})
	w2.add(history.Event{Type: history.Fail, F: history.FTxnAcks, Txn: t2, Error: "INVALID_RECORD_STATE"})
	w2.abort()
	if outcome != history.OK {
		// Its acks did not commit: the records come back and are processed.
		c.worker("w3.1").process(3, checkSpan(0, 3)...)
	}
	return c
}

func TestCheckAckedByNonHolder(t *testing.T) {
	allowed := checkAllowed(t, ctp.Transactional, "lock-expiry-stale-acks")
	t.Run("native/accepted-and-committed", func(t *testing.T) {
		res := check.Run(staleAckCell("native", true, history.OK).obs, allowed)
		checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyAckedByNonHolder: 3})
		ex := res.Anomalies[verdict.AnomalyAckedByNonHolder].Examples[0]
		if ex.Record != "r-000000" || !strings.Contains(ex.Summary, "w1.1 txn 1 put the ack of its delivery 1") ||
			!strings.Contains(ex.Summary, "w2.1 had acquired delivery 2") || !strings.Contains(ex.Summary, "commit ok") {
			t.Errorf("example %+v", ex)
		}
	})
	t.Run("native/refused", func(t *testing.T) {
		res := check.Run(staleAckCell("native", false, "").obs, allowed)
		checkWant(t, res, verdict.Pass, nil)
	})
	// Accepted, but the transaction did not commit: the acks were discarded.
	t.Run("native/accepted-then-aborted", func(t *testing.T) {
		res := check.Run(staleAckCell("native", true, history.Fail).obs, allowed)
		checkWant(t, res, verdict.Pass, nil)
	})
	// The ledger's acks are entries of its own, not a broker's: not judged.
	t.Run("ledger", func(t *testing.T) {
		res := check.Run(staleAckCell("ledger", true, history.OK).obs, allowed)
		if n := res.Anomalies[verdict.AnomalyAckedByNonHolder].Count; n != 0 {
			t.Errorf("ledger: %s %d, want none", verdict.AnomalyAckedByNonHolder, n)
		}
	})
}
