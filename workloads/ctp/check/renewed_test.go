package check_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// renewCell is lock-expiry-renewed in explicit mode as the workers record
// it: w1.1 polls r-0..2, stalls before its commit and renews (the broker
// confirms, holding the records for holdFor, or refuses), w2.1 polls the
// same records (delivery 2) if stolen, processes and commits them, then
// w1.1 commits and ACCEPTs (refused when the records were stolen).
func renewCell(confirmed bool, holdFor time.Duration, stolen bool) *checkCell {
	c := newCheckCell(ctp.Explicit, "", 3)
	w1, w2 := c.worker("w1.1"), c.worker("w2.1")
	recs := w1.poll(1, checkSpan(0, 3)...)
	txn := w1.begin()
	w1.send(recs)
	w1.faultAction("lock-expiry-renewed", ctp.PointBeforeCommit, ctp.ActionStall)
	w1.add(history.Event{Type: history.Invoke, F: history.FRenew, Txn: txn, Records: recs})
	if confirmed {
		until := c.now + holdFor.Nanoseconds()
		w1.add(history.Event{Type: history.OK, F: history.FRenew, Txn: txn, Records: recs,
			Attrs: map[string]string{ctp.AttrLockUntil: strconv.FormatInt(until, 10)}})
	} else {
		w1.add(history.Event{Type: history.Fail, F: history.FRenew, Txn: txn, Records: recs,
			Error: "in/0: INVALID_RECORD_STATE: Renewing acquisition locks is not enabled for the group."})
	}
	if stolen {
		w2.process(2, checkSpan(0, 3)...)
	}
	w1.commit(recs, history.OK)
	w1.outputs(txn, recs)
	if stolen {
		w1.ackOutcome(history.AckAccept, recs, history.Fail)
	} else {
		w1.ack(history.AckAccept, recs)
	}
	return c
}

// TestCheckRedeliveredWhileRenewed: records another worker acquired within
// a renewal the broker confirmed are redelivered-while-renewed (with the
// duplicate they cause), in a row that allows nothing; a refused renewal,
// a renewal whose lock had ended, and renewals nobody broke are clean.
func TestCheckRedeliveredWhileRenewed(t *testing.T) {
	renewed := checkAllowed(t, ctp.Explicit, "lock-expiry-renewed")
	disabled := checkAllowed(t, ctp.Explicit, "lock-expiry-renew-disabled")
	t.Run("kept", func(t *testing.T) {
		checkWant(t, check.Run(renewCell(true, time.Hour, false).obs, renewed), verdict.Pass, nil)
	})
	t.Run("stolen-within-renewal", func(t *testing.T) {
		res := check.Run(renewCell(true, time.Hour, true).obs, renewed)
		if res.Verdict != verdict.Anomaly || res.Anomalies[verdict.AnomalyRedeliveredWhileRenewed].Count != 3 {
			t.Fatalf("verdict %s, anomalies %v: want redelivered-while-renewed x3", res.Verdict, res.Anomalies)
		}
		ex := res.Anomalies[verdict.AnomalyRedeliveredWhileRenewed].Examples[0]
		if ex.Record != "r-000000" || !strings.Contains(ex.Summary, "polled by w2.1") || !strings.Contains(ex.Summary, "held it for w1.1") {
			t.Errorf("example %+v", ex)
		}
	})
	t.Run("stolen-after-the-renewed-lock", func(t *testing.T) {
		res := check.Run(renewCell(true, time.Millisecond, true).obs, disabled)
		if _, found := res.Anomalies[verdict.AnomalyRedeliveredWhileRenewed]; found {
			t.Errorf("a poll after the renewed lock ended was called redelivered-while-renewed: %v", res.Anomalies)
		}
	})
	t.Run("renew-refused", func(t *testing.T) {
		res := check.Run(renewCell(false, 0, true).obs, disabled)
		if _, found := res.Anomalies[verdict.AnomalyRedeliveredWhileRenewed]; found || res.Verdict != verdict.Pass {
			t.Errorf("a refused renewal: %s %v, want PASS with the allowed duplicates only", res.Verdict, res.Anomalies)
		}
	})
}
