package check_test

import (
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// fateCell is a duplicate of r-0..4 whose first worker's story after its
// commit is after's: w1.1 polls them (delivery 1) and commits them, after
// writes what became of it, then w2.1 processes them again (delivery 2) and
// r-5..7 once.
func fateCell(mode ctp.AckMode, realization string, after func(c *checkCell, w1 *checkWorker)) *checkCell {
	c := newCheckCell(mode, realization, 8)
	w1 := c.worker("w1.1")
	w1.commitBatch(w1.poll(1, checkSpan(0, 5)...))
	after(c, w1)
	w2 := c.worker("w2.1")
	w2.process(2, checkSpan(0, 5)...)
	w2.process(2, 5, 6, 7)
	return c
}

// One cause per history, derived from what the first worker did after its
// commit (ack_fate.go). Each cause has a history that must produce it and,
// beside it, a near one that must not (the next row, or the row named in its
// comment): a crash-after-commit worker replaced later is a crash, never a
// fenced zombie; a zombie is never a crash.
func TestDuplicateCauseFromTheFirstWorkersFate(t *testing.T) {
	for _, tc := range fateCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := fateCell(tc.mode, tc.realization, tc.after)
			res := check.Run(c.obs, checkAllowed(t, tc.mode, tc.row))
			if f := res.Anomalies[tc.anomaly]; f.Count != 5 {
				t.Fatalf("anomalies %v, want %s 5 (reason %s)", res.Anomalies, tc.anomaly, res.Reason)
			}
			checkCause(t, res, tc.anomaly, tc.cause, 5, tc.mechanism)
			want := verdict.Pass
			if tc.anomaly != verdict.AnomalyDuplicate || tc.mode == ctp.Transactional {
				want = verdict.Anomaly
			}
			if res.Verdict != want {
				t.Errorf("verdict %s (%s), want %s", res.Verdict, res.Reason, want)
			}
		})
	}
}

// fateCase is one fateCell story and the cause it must produce.
type fateCase struct {
	name, row   string
	mode        ctp.AckMode
	realization string
	after       func(c *checkCell, w1 *checkWorker)
	anomaly     string
	cause       string
	mechanism   string
}

func fateCases() []fateCase {
	return []fateCase{
		// The docker smoke's case: killed at its point, then its
		// replacement started with its transactional id.
		{"killed-at-its-point-then-replaced", "crash-after-commit", ctp.Explicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.faultAction("crash-after-commit", ctp.PointAfterCommit, ctp.ActionKill)
			c.worker("w1.2")
		}, verdict.AnomalyDuplicate, check.CauseCrashAfterCommit, "w1.1 was killed at its after-commit point (crash-after-commit)"},
		{"killed-at-its-point-then-replaced-implicit", "crash-after-commit", ctp.Implicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.faultAction("crash-after-commit", ctp.PointAfterCommit, ctp.ActionKill)
			c.worker("w1.2")
		}, verdict.AnomalyDuplicate, check.CauseCrashAfterCommit, "w1.1 was killed at its after-commit point"},
		// Near the two above: frozen instead of killed, then replaced.
		{"frozen-then-replaced", "zombie-fenced", ctp.Explicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.faultAction("zombie-fenced", ctp.PointAfterCommit, ctp.ActionStop)
			c.worker("w1.2")
		}, verdict.AnomalyDuplicate, check.CauseFencedZombie, "w1.1 was frozen at its after-commit point (zombie-fenced)"},
		// Implicit's ack rides on the fetch after its next poll: frozen
		// in the next batch is before it left.
		{"frozen-in-the-next-batch-implicit", "zombie-fenced", ctp.Implicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.poll(1)
			w1.begin()
			w1.faultAction("zombie-fenced", ctp.PointBeforeCommit, ctp.ActionStop)
			c.worker("w1.2")
		}, verdict.AnomalyDuplicate, check.CauseFencedZombie, "w1.1 was frozen at its before-commit point"},
		// Implicit, the next poll marked the ack, then killed before the
		// fetch it rides on: a crash (ORACLE.md's correction for cases 1
		// and 2), not a forgotten ack.
		{"killed-after-its-next-poll-implicit", "crash-before-begin", ctp.Implicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.poll(1)
			w1.faultAction("crash-before-begin", ctp.PointBeforeBegin, ctp.ActionKill)
			c.worker("w1.2")
		}, verdict.AnomalyDuplicate, check.CauseCrashAfterCommit, "w1.1 was killed at its before-begin point"},
		// An older history (fault-fired without its action): the history
		// ends with no stop event; its replacement came after it died.
		{"history-ends-then-replaced", "crash-after-commit", ctp.Explicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.fault("crash-after-commit", ctp.PointAfterCommit)
			c.worker("w1.2")
		}, verdict.AnomalyDuplicate, check.CauseCrashAfterCommit, "w1.1's history ends after w1.1 txn 1's commit ok"},
		// Near the one above: the replacement started while w1.1 still
		// ran (it polled after that start) and before it acked.
		{"superseded-while-running", "broker-kill", ctp.Explicit, "", func(c *checkCell, w1 *checkWorker) {
			c.worker("w1.2")
			w1.poll(1)
		}, verdict.AnomalyDuplicate, check.CauseFencedZombie, "started at +0.009000s while w1.1 still ran (poll ok at +0.010000s)"},
		{"stopped-before-acking", "broker-kill", ctp.Explicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.stop("")
		}, verdict.AnomalyDuplicate, check.CauseReleased, "closing its consumer released it; it came back as delivery 2"},
		{"acked-then-released-implicit", "broker-kill", ctp.Implicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.poll(1)
			w1.poll(1)
		}, verdict.AnomalyDuplicate, check.CauseReleased, "polled again at +0.009000s (accepting it) and once more at +0.010000s"},
		// Near the one above: the worker went on without polling, which
		// is implicit mode's ack.
		{"went-on-without-polling-implicit", "broker-kill", ctp.Implicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.begin()
		}, verdict.AnomalyDuplicateNeverAcked, check.CauseNeverAcked, "never polled again"},
		// Near "stopped-before-acking" and the crashes: it went on with its
		// next poll and never ACCEPTed, even where duplicates are allowed.
		{"went-on-without-acking", "crash-after-commit", ctp.Explicit, "", func(c *checkCell, w1 *checkWorker) {
			w1.poll(1)
		}, verdict.AnomalyDuplicateNeverAcked, check.CauseNeverAcked, "w1.1 went on (poll ok at +0.009000s) after w1.1 txn 1 committed and invoked no ack of it"},
		{"went-on-without-acking-ledger", "crash-after-commit", ctp.Transactional, "ledger", func(c *checkCell, w1 *checkWorker) {
			w1.poll(1)
		}, verdict.AnomalyDuplicateNeverAcked, check.CauseNeverAcked, "invoked no ack of it"},
		// Native: the ack was inside the committed transaction, so the
		// crash after the commit does not explain the record coming back.
		{"acked-in-the-transaction-then-killed-native", "crash-after-commit", ctp.Transactional, "native", func(c *checkCell, w1 *checkWorker) {
			w1.faultAction("crash-after-commit", ctp.PointAfterCommit, ctp.ActionKill)
			c.worker("w1.2")
		}, verdict.AnomalyDuplicateUnexplained, check.CauseAcceptedYetRedelivered, "its ack was inside w1.1 txn 1, which committed"},
	}
}

// Native: a transaction that committed the records' outputs without their
// acks (no txn-acks ok) forgot them; with the acks in it, the same story is
// no forgotten ack (above: acked-in-the-transaction-then-killed-native).
func TestDuplicateNeverAckedNative(t *testing.T) {
	c := newCheckCell(ctp.Transactional, ctp.RealizationNative, 5)
	w1, w2 := c.worker("w1.1"), c.worker("w2.1")
	recs := w1.poll(1, checkSpan(0, 5)...)
	txn := w1.begin()
	w1.send(recs)
	w1.commit(recs, history.OK)
	w1.outputs(txn, recs)
	w2.process(2, checkSpan(0, 5)...)
	res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "steady"))
	checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyDuplicateNeverAcked: 5})
	checkCause(t, res, verdict.AnomalyDuplicateNeverAcked, check.CauseNeverAcked, 5, "no txn-acks ok of that transaction names it")
}

// Must fail (ORACLE.md: allowed in no mode): in a crash-after-commit cell,
// an explicit loop that ACCEPTs only part of a committed batch and goes on.
// The crash's own duplicates stay allowed; the forgotten records are
// duplicate-never-acked, not "released": nothing in the cell released them.
// Must pass without the forgotten ACCEPT.
func TestForgottenAcceptInACrashAfterCommitCell(t *testing.T) {
	for _, forget := range []bool{false, true} {
		c := newCheckCell(ctp.Explicit, "", 10)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		batch := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(batch)
		if forget {
			w1.ack(history.AckAccept, batch[:3]) // r-3, r-4 left out
		} else {
			w1.ack(history.AckAccept, batch)
		}
		w1.commitBatch(w1.poll(1, checkSpan(5, 10)...))
		w1.faultAction("crash-after-commit", ctp.PointAfterCommit, ctp.ActionKill)
		c.worker("w1.2")
		again := []int{5, 6, 7, 8, 9}
		if forget {
			again = append([]int{3, 4}, again...)
		}
		w2.process(2, again...)
		res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "crash-after-commit"))
		if !forget {
			checkWant(t, res, verdict.Pass, map[string]int{verdict.AnomalyDuplicate: 5})
			checkCause(t, res, verdict.AnomalyDuplicate, check.CauseCrashAfterCommit, 5, "killed at its after-commit point")
			continue
		}
		checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyDuplicate: 5, verdict.AnomalyDuplicateNeverAcked: 2})
		checkCause(t, res, verdict.AnomalyDuplicateNeverAcked, check.CauseNeverAcked, 2, "invoked no ack of it")
		if res.Reason != "not allowed in this mode: duplicate-never-acked 2 (committed, never acknowledged 2)" {
			t.Errorf("reason %q", res.Reason)
		}
	}
}

// The lock-expiry rows' duplicates: the first worker's own stall held the
// records past their lock and another worker acquired them before its
// commit. Named "lock expired"; the same story without the stall is
// "released".
func TestDuplicateCauseLockExpired(t *testing.T) {
	for _, tc := range []struct {
		name        string
		mode        ctp.AckMode
		realization string
		stall       bool
		cause       string
	}{
		{"implicit-stalled", ctp.Implicit, "", true, check.CauseLockExpired},
		{"implicit-not-stalled", ctp.Implicit, "", false, check.CauseReleased},
		{"native-stalled", ctp.Transactional, ctp.RealizationNative, true, check.CauseLockExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCheckCell(tc.mode, tc.realization, 5)
			w1, w2 := c.worker("w1.1"), c.worker("w2.1")
			recs := w1.poll(1, checkSpan(0, 5)...)
			txn := w1.begin()
			w1.send(recs)
			if tc.mode == ctp.Transactional {
				w1.txnAcks(recs)
			}
			if tc.stall {
				w1.faultAction("lock-expiry-before-commit", ctp.PointBeforeCommit, ctp.ActionStall)
			}
			w2.process(2, checkSpan(0, 5)...)
			w1.commit(recs, history.OK)
			w1.outputs(txn, recs)
			w1.stop("")
			w2.stop("")
			res := check.Run(c.obs, checkAllowed(t, tc.mode, "lock-expiry-before-commit"))
			checkCause(t, res, verdict.AnomalyDuplicate, tc.cause, 5, "it came back as delivery 2 at +0.")
		})
	}
}

// The forgotten record comes back to the worker that forgot it, which
// processes and ACCEPTs its second delivery: that ACCEPT is the second
// delivery's, not a late ack of the first (seen in the forget-ack mutant's
// cell: 61 of its forgotten records were called "released" for it). Must be
// duplicate-never-acked; the same worker ACCEPTing its first delivery late,
// after the record came back, must stay "released".
func TestForgottenAcceptComingBackToTheSameWorker(t *testing.T) {
	c := newCheckCell(ctp.Explicit, "", 5)
	w1 := c.worker("w1.1")
	batch := w1.poll(1, checkSpan(0, 5)...)
	w1.commitBatch(batch)
	w1.ack(history.AckAccept, batch[1:]) // r-0 left out
	w1.process(2, 0)
	res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "steady"))
	checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyDuplicateNeverAcked: 1})
	checkCause(t, res, verdict.AnomalyDuplicateNeverAcked, check.CauseNeverAcked, 1, "invoked no ack of it")
}
