package check_test

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// forgottenAckCell: w1.1 processes r-0..4 as delivery 1 and its ack is
// confirmed (ACCEPTed ok; native, committed in its transaction), a cluster
// fault strikes, and w2.1 polls them again as delivery `again`: processes
// them (skip false), or, as a ledger worker that finds them committed,
// ACCEPTs them without processing (skip true).
func forgottenAckCell(mode ctp.AckMode, realization string, again int32, skip bool) *checkCell {
	c := newCheckCell(mode, realization, 5)
	w1, w2, orch := c.worker("w1.1"), c.worker("w2.1"), c.worker("orchestrator")
	w1.process(1, checkSpan(0, 5)...)
	orch.fault("data-leader-kill", "under-load")
	if skip {
		w2.ack(history.AckAccept, w2.poll(again, checkSpan(0, 5)...))
		return c
	}
	w2.process(again, checkSpan(0, 5)...)
	return c
}

// TestCheckRedeliveredAfterAck: a record delivered again, as a delivery no
// later than one whose acknowledgement the broker had confirmed, is
// redelivered-after-ack in every mode that sees the confirmation, also
// where the row allows the duplicate it causes (explicit) and where no
// duplicate shows (a ledger worker skips it).
func TestCheckRedeliveredAfterAck(t *testing.T) {
	for _, tc := range []struct {
		name        string
		mode        ctp.AckMode
		realization string
		skip        bool
		how         string
	}{
		{"explicit", ctp.Explicit, "", false, "ACCEPTed ok"},
		{"ledger-skips-it", ctp.Transactional, ctp.RealizationLedger, true, "ACCEPTed ok"},
		{"native", ctp.Transactional, ctp.RealizationNative, false, "its ack committed in txn 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := check.Run(forgottenAckCell(tc.mode, tc.realization, 1, tc.skip).obs, checkAllowed(t, tc.mode, "data-leader-kill"))
			f := res.Anomalies[verdict.AnomalyRedeliveredAfterAck]
			if res.Verdict != verdict.Anomaly || f.Count != 5 {
				t.Fatalf("verdict %s, anomalies %v: want redelivered-after-ack x5", res.Verdict, res.Anomalies)
			}
			checkCause(t, res, verdict.AnomalyRedeliveredAfterAck, check.CauseForgottenAck, 5, "delivery 1 "+tc.how+" by w1.1")
			if ex := f.Examples[0]; !strings.Contains(ex.Summary, "data-leader-kill struck the cluster at") || !strings.Contains(ex.Summary, "delivered again as delivery 1 to w2.1") {
				t.Errorf("example %+v: want the fault between and the second delivery named", ex)
			}
		})
	}
}

// TestCheckRedeliveredAfterAckNeedsAConfirmation: a later acquisition (a
// higher delivery count), an ACCEPT the broker refused, a RELEASE, a
// delivery polled before the ACCEPT, one with no leader change since the
// ACCEPT, and implicit mode's unanswered acks are not redelivered-after-ack.
func TestCheckRedeliveredAfterAckNeedsAConfirmation(t *testing.T) {
	noneOf := func(t *testing.T, c *checkCell, scenario string) {
		t.Helper()
		res := check.Run(c.obs, checkAllowed(t, c.obs.Mode, scenario))
		if f, found := res.Anomalies[verdict.AnomalyRedeliveredAfterAck]; found {
			t.Errorf("redelivered-after-ack %d: %+v", f.Count, f.Examples)
		}
	}
	t.Run("later-delivery", func(t *testing.T) {
		noneOf(t, forgottenAckCell(ctp.Explicit, "", 2, false), "data-leader-kill")
	})
	t.Run("no-reload-between", func(t *testing.T) {
		// No leader change since the ACCEPT: the second delivery 1 waited
		// in w2.1's client (a duplicate of its own kind, not this one).
		c := newCheckCell(ctp.Explicit, "", 5)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		w1.process(1, checkSpan(0, 5)...)
		w2.process(1, checkSpan(0, 5)...)
		noneOf(t, c, "data-leader-kill")
	})
	t.Run("implicit", func(t *testing.T) {
		noneOf(t, forgottenAckCell(ctp.Implicit, "", 1, false), "data-leader-kill")
	})
	t.Run("accept-refused", func(t *testing.T) {
		c := newCheckCell(ctp.Explicit, "", 5)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(recs)
		w1.ackOutcome(history.AckAccept, recs, history.Fail)
		w2.process(1, checkSpan(0, 5)...)
		noneOf(t, c, "data-leader-kill")
	})
	t.Run("released", func(t *testing.T) {
		c := newCheckCell(ctp.Explicit, "", 5)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.begin()
		w1.abort()
		w1.ack(history.AckRelease, recs)
		w2.process(1, checkSpan(0, 5)...)
		noneOf(t, c, "data-leader-kill")
	})
	t.Run("polled-before-the-accept", func(t *testing.T) {
		c := newCheckCell(ctp.Explicit, "", 5)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(recs)
		again := w2.poll(1, checkSpan(0, 5)...)
		w1.ack(history.AckAccept, recs)
		w2.commitBatch(again)
		noneOf(t, c, "data-leader-kill")
	})
}
