package check_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// checkCause asserts that anomaly was found n times, all with cause, and that
// its first example names the cause and, in its summary, the mechanism.
func checkCause(t *testing.T, res check.Result, anomaly, cause string, n int, mechanism string) {
	t.Helper()
	f := res.Anomalies[anomaly]
	if f.Count != n || f.Causes[cause] != n || len(f.Causes) != 1 {
		t.Errorf("%s: count %d causes %v, want %d x %q", anomaly, f.Count, f.Causes, n, cause)
		return
	}
	ex := f.Examples[0]
	if ex.Cause != cause || !strings.Contains(ex.Summary, cause) || !strings.Contains(ex.Summary, mechanism) {
		t.Errorf("%s example: cause %q summary %q, want %q and %q", anomaly, ex.Cause, ex.Summary, cause, mechanism)
	}
}

// Must pass, naming the cause: ORACLE.md 4b, a crash after the commit
// duplicates in explicit and implicit.
func TestDuplicateCauseCrashAfterCommit(t *testing.T) {
	for _, mode := range []ctp.AckMode{ctp.Explicit, ctp.Implicit} {
		t.Run(string(mode), func(t *testing.T) {
			res := check.Run(checkCrashAfterCommit(mode, "").obs, checkAllowed(t, mode, "crash-after-commit"))
			checkWant(t, res, verdict.Pass, map[string]int{verdict.AnomalyDuplicate: 5})
			checkCause(t, res, verdict.AnomalyDuplicate, check.CauseCrashAfterCommit, 5,
				"w1.1's history ends after w1.1 txn 1's commit ok")
			if s := res.Anomalies[verdict.AnomalyDuplicate].Examples[0].Summary; !strings.Contains(s, "w1.1 txn 1 (delivery 1), w2.1 txn 1 (delivery 2)") {
				t.Errorf("summary %q does not name both deliveries", s)
			}
		})
	}
}

// Must fail in every mode: two outputs of one input written by one
// transaction of one delivery, which no redelivery produces, even where the
// row allows duplicates.
func TestDuplicateFromOneTransactionIsAnomaly(t *testing.T) {
	for _, mode := range ctp.Modes {
		t.Run(string(mode), func(t *testing.T) {
			c := newCheckCell(mode, "ledger", 5)
			w1 := c.worker("w1.1")
			txn := w1.process(1, checkSpan(0, 5)...)
			w1.outputs(txn, c.obs.History[1].Records[:2]) // r-0, r-1 written twice by txn 1
			res := check.Run(c.obs, checkAllowed(t, mode, "crash-after-commit"))
			checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyDuplicateInOneDelivery: 2})
			checkCause(t, res, verdict.AnomalyDuplicateInOneDelivery, check.CauseOneTransaction, 2, "both outputs are w1.1 txn 1's")
			if res.Counts.Duplicated != 2 || res.Counts.ExtraOutputs != 2 {
				t.Errorf("counts %+v: duplicated counts every id with two outputs", res.Counts)
			}
			if !strings.Contains(res.Reason, "duplicate-in-one-delivery 2 (one transaction wrote it twice 2)") {
				t.Errorf("reason %q does not name the cause", res.Reason)
			}
		})
	}
}

// Must fail: one poll's records committed in two transactions.
func TestDuplicateFromOneDeliveryInTwoTransactionsIsAnomaly(t *testing.T) {
	for _, mode := range []ctp.AckMode{ctp.Explicit, ctp.Implicit} {
		t.Run(string(mode), func(t *testing.T) {
			c := newCheckCell(mode, "", 5)
			w1 := c.worker("w1.1")
			recs := w1.poll(1, checkSpan(0, 5)...)
			w1.commitBatch(recs)
			w1.commitBatch(recs) // a buggy loop retrying without polling again
			w1.acceptAfterCommit(recs)
			res := check.Run(c.obs, checkAllowed(t, mode, "broker-kill"))
			checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyDuplicateInOneDelivery: 5})
			checkCause(t, res, verdict.AnomalyDuplicateInOneDelivery, check.CauseOneDelivery, 5, "processed the same poll")
		})
	}
}

// Must fail: an explicit worker ACCEPTed ok after its commit, and the record
// was processed again: nothing the history shows explains it.
func TestDuplicateAfterAcceptOKIsUnexplained(t *testing.T) {
	c := newCheckCell(ctp.Explicit, "", 5)
	w1, w2 := c.worker("w1.1"), c.worker("w2.1")
	w1.process(1, checkSpan(0, 5)...)
	w2.process(2, checkSpan(0, 5)...)
	res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "broker-kill"))
	checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyDuplicateUnexplained: 5})
	checkCause(t, res, verdict.AnomalyDuplicateUnexplained, check.CauseAcceptedYetRedelivered, 5, "w1.1 ACCEPTed it ok")
}

// Must pass where the row allows duplicates: an ACCEPT answered ok, then a
// broker killed (the orchestrator's firing) before the record came back: the
// broker lost the ack with its state, at-least-once as ORACLE.md allows. Must
// still fail in transactional mode, which allows no duplicate at all.
func TestDuplicateAfterAcceptOKAndABrokerFaultIsARedelivery(t *testing.T) {
	for mode, want := range map[ctp.AckMode]verdict.Verdict{ctp.Explicit: verdict.Pass, ctp.Implicit: verdict.Pass, ctp.Transactional: verdict.Anomaly} {
		c := newCheckCell(mode, "", 5)
		w1, w2, orch := c.worker("w1.1"), c.worker("w2.1"), c.worker("orchestrator")
		w1.process(1, checkSpan(0, 5)...)
		orch.fault("broker-kill", "under-load")
		w2.process(2, checkSpan(0, 5)...)
		res := check.Run(c.obs, checkAllowed(t, mode, "broker-kill"))
		if res.Verdict != want {
			t.Errorf("%s: verdict %s (%s), want %s", mode, res.Verdict, res.Reason, want)
		}
		if mode == ctp.Explicit { // implicit's acks ride on a fetch the history does not show as an ACCEPT
			checkCause(t, res, verdict.AnomalyDuplicate, check.CauseAckLostWithBroker, 5, "broker-kill struck the cluster")
		}
	}
}

// Must pass where the row allows duplicates: a broker fault between two
// deliveries of the same count (the new leader did not know the first
// acquisition); must fail without the fault.
func TestDuplicateOfTheSameDeliveryCountAcrossABrokerFault(t *testing.T) {
	for _, withFault := range []bool{true, false} {
		c := newCheckCell(ctp.Implicit, "", 5)
		w1, w2, orch := c.worker("w1.1"), c.worker("w2.1"), c.worker("orchestrator")
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(recs)
		if withFault {
			orch.fault("broker-kill", "under-load")
		}
		again := w2.poll(1, checkSpan(0, 5)...)
		w2.commitBatch(again)
		w1.stop("")
		w2.stop("")
		res := check.Run(c.obs, checkAllowed(t, ctp.Implicit, "broker-kill"))
		switch {
		case withFault && res.Verdict != verdict.Pass:
			t.Errorf("with the fault: %s (%s), want PASS", res.Verdict, res.Reason)
		case withFault:
			checkCause(t, res, verdict.AnomalyDuplicate, check.CauseLeaderLostState, 5, "broker-kill struck the cluster")
		case res.Verdict != verdict.Anomaly:
			t.Errorf("without a fault: %s (%s), want ANOMALY", res.Verdict, res.Reason)
		}
	}
}

// Must pass, naming each cause, where the row allows duplicates.
func TestDuplicateCausesAllowed(t *testing.T) {
	for _, tc := range []struct {
		name, cause, mechanism string
		mode                   ctp.AckMode
		first                  func(w *checkWorker, recs []history.Rec)
	}{
		{"ack-failed", check.CauseAckFailed, "accept after the commit failed", ctp.Explicit,
			func(w *checkWorker, recs []history.Rec) {
				w.commitBatch(recs)
				w.ackOutcome(history.AckAccept, recs, history.Fail)
			}},
		{"ack-unknown", check.CauseAckUnknown, "unknown outcome", ctp.Explicit,
			func(w *checkWorker, recs []history.Rec) {
				w.commitBatch(recs)
				w.ackOutcome(history.AckAccept, recs, history.Info)
			}},
		{"commit-unknown", check.CauseCommitUnknown, "commit info", ctp.Explicit,
			func(w *checkWorker, recs []history.Rec) {
				txn := w.begin()
				w.send(recs)
				w.commit(recs, history.Info)
				w.ack(history.AckRelease, recs)
				w.outputs(txn, recs)
			}},
		{"released", check.CauseReleased, "came back as delivery 2", ctp.Implicit,
			func(w *checkWorker, recs []history.Rec) {
				w.commitBatch(recs) // its acks ride on a fetch whose connection drops
				w.poll(1, 7)
				w.stop("")
			}},
		{"fenced-zombie", check.CauseFencedZombie, "w1.1 was frozen at its before-commit point", ctp.Implicit,
			func(w *checkWorker, recs []history.Rec) {
				w.commitBatch(recs)
				w.poll(1, 7)
				w.begin()
				w.faultAction("zombie-fenced", ctp.PointBeforeCommit, ctp.ActionStop)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCheckCell(tc.mode, "", 8)
			w1 := c.worker("w1.1")
			tc.first(w1, w1.poll(1, checkSpan(0, 5)...))
			w2 := c.worker("w2.1")
			w2.process(2, checkSpan(0, 5)...)
			w2.process(1, 5, 6)
			w2.process(2, 7)
			res := check.Run(c.obs, checkAllowed(t, tc.mode, "broker-kill"))
			checkWant(t, res, verdict.Pass, map[string]int{verdict.AnomalyDuplicate: 5})
			checkCause(t, res, verdict.AnomalyDuplicate, tc.cause, 5, tc.mechanism)
		})
	}
}

// Must pass, naming the cause: implicit loses the batch its next poll
// accepts after an abort (ORACLE.md 6).
func TestLossCauseAcceptedByNextPoll(t *testing.T) {
	c := checkAbortedBatch(ctp.Implicit, func(w *checkWorker, _ []history.Rec) { w.poll(1, 5) })
	res := check.Run(c.obs, checkAllowed(t, ctp.Implicit, "explicit-abort"))
	checkWant(t, res, verdict.Pass, map[string]int{verdict.AnomalyLost: 5, verdict.AnomalyAckWithoutOutput: 5})
	checkCause(t, res, verdict.AnomalyLost, check.CauseAcceptedByNextPoll, 5, "w1.1 txn 1 ended with abort ok; w1.1 polled again")
}

// Must fail in every mode: a record lost although its transaction
// committed, even where implicit may lose records after an abort.
func TestLossAfterCommitIsAnomaly(t *testing.T) {
	for _, mode := range ctp.Modes {
		t.Run(string(mode), func(t *testing.T) {
			c := newCheckCell(mode, "ledger", 5)
			w1 := c.worker("w1.1")
			recs := w1.poll(1, checkSpan(0, 5)...)
			w1.commitBatch(recs)
			w1.acceptAfterCommit(recs)
			w1.poll(1)                        // implicit: the next poll accepts
			c.obs.Outputs = c.obs.Outputs[:3] // r-3, r-4 committed, yet not visible
			res := check.Run(c.obs, checkAllowed(t, mode, "explicit-abort"))
			want := map[string]int{verdict.AnomalyLostAfterCommit: 2, verdict.AnomalyAckWithoutOutput: 2,
				verdict.AnomalyTornTransaction: 1}
			checkWant(t, res, verdict.Anomaly, want)
			checkCause(t, res, verdict.AnomalyLostAfterCommit, check.CauseTxnCommitted, 2, "w1.1 txn 1 committed (commit ok)")
		})
	}
}

// Must fail: implicit loss where the aborting worker died: its batch was
// released with its connection, not accepted, so nothing explains the loss.
func TestLossWithoutAcceptIsUnexplained(t *testing.T) {
	c := checkAbortedBatch(ctp.Implicit, func(*checkWorker, []history.Rec) {})
	// checkAbortedBatch's w2.1 starts after w1.1's abort; w1.1 writes nothing more.
	res := check.Run(c.obs, checkAllowed(t, ctp.Implicit, "explicit-abort"))
	checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyLostUnexplained: 5, verdict.AnomalyAckWithoutOutput: 5})
	checkCause(t, res, verdict.AnomalyLostUnexplained, check.CauseNoAbortThenAccept, 5, "none followed by an accept")
}

// Must fail: in explicit mode a later poll accepts nothing; a record
// RELEASEd after its abort and then lost is unexplained.
func TestLossAfterReleaseIsUnexplainedInExplicit(t *testing.T) {
	c := checkAbortedBatch(ctp.Explicit, func(w *checkWorker, recs []history.Rec) {
		w.ack(history.AckRelease, recs)
		w.poll(1, 5)
	})
	res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "explicit-abort"))
	checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyLostUnexplained: 5, verdict.AnomalyAckWithoutOutput: 5})
}

// Must pass in explicit, named "lock expired": a worker held its batch past
// the lock (lock-expiry-race, its own stall), another acquired and committed
// the records first, then the first committed too and its late ACCEPT came
// back ok (kfake answers ok). The first delivery is the earlier poll, and the
// second came before its commit, so no ACCEPT could have prevented it.
func TestDuplicateAfterLockExpiryRaceIsReleased(t *testing.T) {
	c := newCheckCell(ctp.Explicit, "", 5)
	w1, w2 := c.worker("w1.1"), c.worker("w2.1")
	held := w1.poll(1, checkSpan(0, 5)...)
	w1.faultAction("lock-expiry-race", ctp.PointBeforeBegin, ctp.ActionStall)
	w2.process(2, checkSpan(0, 5)...) // acquired, committed and ACCEPTed while w1 holds them
	w1.commitBatch(held)
	w1.acceptAfterCommit(held)
	res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "lock-expiry-race"))
	checkWant(t, res, verdict.Pass, map[string]int{verdict.AnomalyDuplicate: 5})
	checkCause(t, res, verdict.AnomalyDuplicate, check.CauseLockExpired, 5, "before w1.1 txn 1 committed")
	if s := res.Anomalies[verdict.AnomalyDuplicate].Examples[0].Summary; !strings.Contains(s, "w1.1 stalled holding it (lock-expiry-race, stall") {
		t.Errorf("summary %q does not name the stall", s)
	}
}

// Must pass in explicit, named "lock expired": w2's client prefetched records
// (delivery 1) beside the batch it stalled on, past the lock; w1 acquired
// them again (delivery 2), committed and ACCEPTed them ok; w2, its stall
// over, polled the prefetched delivery 1 from its client and committed it
// (its ACCEPT refused). The polls are in the other order of the deliveries:
// the first delivery is the broker's delivery 1, not the earlier poll, and
// w1's ACCEPT of delivery 2 is no ACCEPT of it (CI, stall-past-lock.yaml:
// it was judged "ACCEPTed ok, yet processed again"). The same delivery
// count on both sides is one delivery handed out twice (must fail).
func TestDuplicateOfADeliveryPrefetchedBeforeAStall(t *testing.T) {
	for _, second := range []int32{2, 1} {
		c := newCheckCell(ctp.Explicit, "", 8)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		own := w2.poll(1, checkSpan(5, 8)...)
		w2.begin()
		w2.send(own)
		w2.faultAction("stall-past-lock", ctp.PointBeforeCommit, ctp.ActionStall)
		w1.process(second, checkSpan(0, 5)...) // the records w2's client holds, lock expired
		w2.commit(own, history.Fail)
		w2.ackOutcome(history.AckRelease, own, history.Fail)
		w1.process(2, checkSpan(5, 8)...)
		prefetched := w2.poll(1, checkSpan(0, 5)...)
		w2.commitBatch(prefetched)
		w2.ackOutcome(history.AckAccept, prefetched, history.Fail)
		w1.stop("")
		w2.stop("")
		res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "lock-expiry-race"))
		if second == 1 {
			if n := res.Anomalies[verdict.AnomalyDuplicateUnexplained].Count; n != 5 {
				t.Errorf("delivery 1 committed by two workers: anomalies %v, want %s 5", res.Anomalies, verdict.AnomalyDuplicateUnexplained)
			}
			continue
		}
		checkWant(t, res, verdict.Pass, map[string]int{verdict.AnomalyDuplicate: 5})
		checkCause(t, res, verdict.AnomalyDuplicate, check.CauseLockExpired, 5, "w2.1 stalled holding it (stall-past-lock, stall")
	}
}

// Must pass where the row allows duplicates: a cluster fault that fired just
// before the first delivery and healed after the second (a graceful restart
// begins its shutdown, and the broker leads until leadership moved) is
// between the deliveries; one that healed before the first delivery is not,
// and the duplicate stays unexplained (must fail).
func TestDuplicateOfTheSameDeliveryCountInsideAFaultWindow(t *testing.T) {
	for _, healedBefore := range []bool{false, true} {
		c := newCheckCell(ctp.Implicit, "", 5)
		w1, orch := c.worker("w1.1"), c.worker("orchestrator")
		orch.fault("rolling-restart", "under-load")
		if healedBefore {
			orch.heal()
		}
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(recs)
		again := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(again)
		if !healedBefore {
			orch.heal()
		}
		w1.stop("")
		res := check.Run(c.obs, checkAllowed(t, ctp.Implicit, "rolling-restart"))
		switch {
		case !healedBefore && res.Verdict != verdict.Pass:
			t.Errorf("fault window around the deliveries: %s (%s), want PASS", res.Verdict, res.Reason)
		case !healedBefore:
			checkCause(t, res, verdict.AnomalyDuplicate, check.CauseLeaderLostState, 5, "rolling-restart struck the cluster")
		case res.Verdict != verdict.Anomaly:
			t.Errorf("fault healed before the first delivery: %s (%s), want ANOMALY", res.Verdict, res.Reason)
		}
	}
}

// Must pass where the row allows duplicates: a heal that waited for the
// cut-off broker to rejoin acts until that wait ended (link-cut on Kafka
// 4.4.0: the cut broker lost the controller, was fenced, and took its
// leaderships back about a second after the heal, handing out again with
// delivery count 1 what it had in flight), so deliveries inside the wait
// are explained; the same heal without its wait leaves them unexplained
// (must fail).
func TestDuplicateOfTheSameDeliveryCountWhileAHealWaits(t *testing.T) {
	for _, waited := range []time.Duration{time.Hour, 0} {
		c := newCheckCell(ctp.Implicit, "", 5)
		w1, orch := c.worker("w1.1"), c.worker("orchestrator")
		orch.fault("link-cut", "under-load")
		orch.healWaited(waited)
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(recs)
		again := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(again)
		w1.stop("")
		res := check.Run(c.obs, checkAllowed(t, ctp.Implicit, "link-cut"))
		switch {
		case waited > 0 && res.Verdict != verdict.Pass:
			t.Errorf("deliveries inside the heal's wait: %s (%s), want PASS", res.Verdict, res.Reason)
		case waited > 0:
			checkCause(t, res, verdict.AnomalyDuplicate, check.CauseLeaderLostState, 5, "link-cut struck the cluster")
		case res.Verdict != verdict.Anomaly:
			t.Errorf("deliveries after a heal that did not wait: %s (%s), want ANOMALY", res.Verdict, res.Reason)
		}
	}
}

// Must pass where the row allows duplicates: a fault's preparation that
// moved leaders off a broker (case 4 does, before it holds the markers)
// releases what the old leaders handed out, and a record can come back with
// the same delivery count; a preparation that moved nothing explains
// nothing (must fail).
func TestDuplicateOfTheSameDeliveryCountDuringLeaderMoves(t *testing.T) {
	for _, moved := range []string{"input/0:3->1", "none"} {
		c := newCheckCell(ctp.Implicit, "", 5)
		w1, orch := c.worker("w1.1"), c.worker("orchestrator")
		orch.prepare("coordinator-crash-after-endtxn", moved, time.Hour)
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(recs)
		again := w1.poll(1, checkSpan(0, 5)...)
		w1.commitBatch(again)
		w1.stop("")
		res := check.Run(c.obs, checkAllowed(t, ctp.Implicit, "coordinator-crash-after-endtxn"))
		switch {
		case moved != "none" && res.Verdict != verdict.Pass:
			t.Errorf("leaders moved between the deliveries: %s (%s), want PASS", res.Verdict, res.Reason)
		case moved != "none":
			checkCause(t, res, verdict.AnomalyDuplicate, check.CauseLeaderLostState, 5, "leaders moved off a broker")
		case res.Verdict != verdict.Anomaly:
			t.Errorf("nothing moved: %s (%s), want ANOMALY", res.Verdict, res.Reason)
		}
	}
}
