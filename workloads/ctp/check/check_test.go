package check_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// checkAllowed is AllowedFor that fails the test on an unknown row.
func checkAllowed(t *testing.T, mode ctp.AckMode, scenario string) check.Allowed {
	t.Helper()
	a, err := scenarios.AllowedFor(mode, scenario)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// checkWant asserts the verdict, and that exactly the anomalies named are
// found, with these counts.
func checkWant(t *testing.T, res check.Result, want verdict.Verdict, anomalies map[string]int) {
	t.Helper()
	if res.Verdict != want {
		t.Errorf("verdict %s, want %s (reason: %s)", res.Verdict, want, res.Reason)
	}
	got := map[string]int{}
	for name, f := range res.Anomalies {
		got[name] = f.Count
	}
	if anomalies == nil {
		anomalies = map[string]int{}
	}
	if !reflect.DeepEqual(got, anomalies) {
		t.Errorf("anomalies %v, want %v", got, anomalies)
	}
	if t.Failed() {
		for name, f := range res.Anomalies {
			for _, ex := range f.Examples {
				t.Logf("%s example %s: %s\n  %s\n  fault: %s", name, ex.Record, ex.Summary,
					strings.Join(ex.Steps, "\n  "), ex.Fault)
			}
		}
	}
}

// checkCleanRun is three workers processing 30 records in batches of 5.
func checkCleanRun(mode ctp.AckMode, realization string) *checkCell {
	c := newCheckCell(mode, realization, 30)
	ws := []*checkWorker{c.worker("w1.1"), c.worker("w2.1"), c.worker("w3.1")}
	for b := range 6 {
		ws[b%3].process(1, checkSpan(b*5, b*5+5)...)
	}
	return c
}

// Must pass: a clean run holds in every mode and realization, with every
// count what CONTRACT.md says.
func TestCheckCleanRunPasses(t *testing.T) {
	for _, tc := range []struct {
		mode        ctp.AckMode
		realization string
	}{{ctp.Transactional, "ledger"}, {ctp.Transactional, "native"}, {ctp.Explicit, ""}, {ctp.Implicit, ""}} {
		t.Run(string(tc.mode)+"/"+tc.realization, func(t *testing.T) {
			res := check.Run(checkCleanRun(tc.mode, tc.realization).obs, checkAllowed(t, tc.mode, "steady"))
			checkWant(t, res, verdict.Pass, nil)
			want := verdict.Counts{Input: 30, Processed: 30}
			if res.Counts != want {
				t.Errorf("counts %+v, want %+v", res.Counts, want)
			}
			if res.Reason != "" || len(res.Disallowed) != 0 {
				t.Errorf("a PASS with reason %q, disallowed %v", res.Reason, res.Disallowed)
			}
		})
	}
}

// checkCrashAfterCommit: w1.1 commits r-0..4, fires crash-after-commit and
// dies before its ACCEPT; the records come back to w2.1 (delivery 2), which
// processes them again.
func checkCrashAfterCommit(mode ctp.AckMode, realization string) *checkCell {
	c := newCheckCell(mode, realization, 10)
	w1, w2 := c.worker("w1.1"), c.worker("w2.1")
	recs := w1.poll(1, checkSpan(0, 5)...)
	w1.commitBatch(recs)
	w1.fault("crash-after-commit", ctp.PointAfterCommit)
	w2.process(2, checkSpan(0, 5)...)
	w2.process(1, checkSpan(5, 10)...)
	return c
}

// Must pass: ORACLE.md 4b, explicit and implicit duplicate after a crash
// after the commit: counted, allowed.
func TestCheckCrashAfterCommitDuplicatesAllowedInExplicitAndImplicit(t *testing.T) {
	for _, mode := range []ctp.AckMode{ctp.Explicit, ctp.Implicit} {
		t.Run(string(mode), func(t *testing.T) {
			res := check.Run(checkCrashAfterCommit(mode, "").obs, checkAllowed(t, mode, "crash-after-commit"))
			checkWant(t, res, verdict.Pass, map[string]int{verdict.AnomalyDuplicate: 5})
			want := verdict.Counts{Input: 10, Processed: 10, Duplicated: 5, ExtraOutputs: 5}
			if res.Counts != want {
				t.Errorf("counts %+v, want %+v", res.Counts, want)
			}
			if !reflect.DeepEqual(res.Allowed, []string{verdict.AnomalyDuplicate}) {
				t.Errorf("allowed %v", res.Allowed)
			}
		})
	}
}

// Must fail: the same duplicates in the transactional mode, where the acks
// were in the transaction. The example shows both transactions and the fault.
func TestCheckDuplicateInTransactionalIsAnomaly(t *testing.T) {
	res := check.Run(checkCrashAfterCommit(ctp.Transactional, "ledger").obs,
		checkAllowed(t, ctp.Transactional, "crash-after-commit"))
	checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyDuplicate: 5})
	if !reflect.DeepEqual(res.Disallowed, []string{verdict.AnomalyDuplicate}) {
		t.Errorf("disallowed %v", res.Disallowed)
	}
	f := res.Anomalies[verdict.AnomalyDuplicate]
	if len(f.Examples) != verdict.MaxExamples {
		t.Fatalf("%d examples, want %d", len(f.Examples), verdict.MaxExamples)
	}
	ex := f.Examples[0]
	if ex.Record != "r-000000" {
		t.Errorf("first example is %s, want the smallest id r-000000", ex.Record)
	}
	for _, want := range []string{"w1.1 txn 1", "w2.1 txn 1"} {
		if !strings.Contains(ex.Summary, want) {
			t.Errorf("summary %q does not name %s", ex.Summary, want)
		}
	}
	if !strings.HasPrefix(ex.Fault, "crash-after-commit at after-commit (fired by w1.1") {
		t.Errorf("fault %q, want crash-after-commit fired by w1.1", ex.Fault)
	}
	steps := strings.Join(ex.Steps, "\n")
	for _, want := range []string{
		"+0.002000s w1.1 poll ok: p0 o0 delivery 1",
		"w1.1 commit ok txn 1",
		"w1.1 fault-fired info: fault crash-after-commit at after-commit",
		"w2.1 poll ok: p0 o0 delivery 2",
		"w2.1 commit ok txn 1",
		"after the drain: output p0 o0 visible, from w1.1 txn 1",
		"after the drain: output p0 o5 visible, from w2.1 txn 1",
	} {
		if !strings.Contains(steps, want) {
			t.Errorf("steps lack %q:\n%s", want, steps)
		}
	}
}

// checkAbortedBatch: w1.1 polls r-0..4, sends, aborts (validation) and then
// does what its mode does after an abort; w2.1 later polls r-5..9.
func checkAbortedBatch(mode ctp.AckMode, then func(w *checkWorker, recs []history.Rec)) *checkCell {
	c := newCheckCell(mode, "", 10)
	w1, w2 := c.worker("w1.1"), c.worker("w2.1")
	recs := w1.poll(1, checkSpan(0, 5)...)
	w1.begin()
	w1.send(recs)
	w1.fault("explicit-abort", ctp.PointBeforeCommit)
	w1.abort()
	then(w1, recs)
	w2.process(1, checkSpan(5, 10)...)
	return c
}

// Must fail: records the share group is done with but that have no
// committed output are lost (and show as ack-without-output). Must pass:
// implicit explicit-abort, where ORACLE.md 6 expects exactly that loss.
func TestCheckLost(t *testing.T) {
	// Implicit: the next poll accepts the aborted batch.
	implicitAccept := func(w *checkWorker, _ []history.Rec) { w.poll(1, 5) }
	// A buggy explicit worker that ACCEPTs after an abort.
	buggyAccept := func(w *checkWorker, recs []history.Rec) { w.ack(history.AckAccept, recs) }

	t.Run("explicit/explicit-abort", func(t *testing.T) {
		res := check.Run(checkAbortedBatch(ctp.Explicit, buggyAccept).obs,
			checkAllowed(t, ctp.Explicit, "explicit-abort"))
		checkWant(t, res, verdict.Anomaly, map[string]int{
			verdict.AnomalyLost: 5, verdict.AnomalyAckWithoutOutput: 5})
		if res.Counts.Lost != 5 || res.Counts.Processed != 5 || res.Counts.Archived != 0 {
			t.Errorf("counts %+v", res.Counts)
		}
		ex := res.Anomalies[verdict.AnomalyLost].Examples[0]
		if ex.Record != "r-000000" || !strings.Contains(ex.Summary, "share start offset 10") {
			t.Errorf("example %+v", ex)
		}
		if steps := strings.Join(ex.Steps, "\n"); !strings.Contains(steps, "w1.1 abort ok txn 1") ||
			!strings.Contains(steps, "w1.1 ack ok: p0 o0 delivery 1, batch of 5, accept") {
			t.Errorf("steps do not show the abort and the accept:\n%s", steps)
		}
		if ex.Fault == "" {
			t.Errorf("example names no fault")
		}
	})
	t.Run("start-offset-moved-by-the-drain", func(t *testing.T) {
		c := checkAbortedBatch(ctp.Explicit, buggyAccept)
		c.obs.ShareStartReported = map[int32]int64{0: 5}
		c.obs.ShareStartRule = map[int32]string{0: ctp.RuleLagZeroIsDone}
		res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "explicit-abort"))
		if ex := res.Anomalies[verdict.AnomalyLost].Examples[0]; !strings.Contains(ex.Summary, "share start offset 10, Kafka reported 5 (lag-0-is-done)") {
			t.Errorf("example %q does not name both start offsets", ex.Summary)
		}
	})
	t.Run("implicit/explicit-abort", func(t *testing.T) {
		res := check.Run(checkAbortedBatch(ctp.Implicit, implicitAccept).obs,
			checkAllowed(t, ctp.Implicit, "explicit-abort"))
		checkWant(t, res, verdict.Pass, map[string]int{
			verdict.AnomalyLost: 5, verdict.AnomalyAckWithoutOutput: 5})
	})
	t.Run("implicit/steady", func(t *testing.T) {
		res := check.Run(checkAbortedBatch(ctp.Implicit, implicitAccept).obs,
			checkAllowed(t, ctp.Implicit, "steady"))
		checkWant(t, res, verdict.Anomaly, map[string]int{
			verdict.AnomalyLost: 5, verdict.AnomalyAckWithoutOutput: 5})
	})
	t.Run("explicit/release-is-no-loss", func(t *testing.T) {
		c := checkAbortedBatch(ctp.Explicit, func(w *checkWorker, recs []history.Rec) {
			w.ack(history.AckRelease, recs)
			w.process(2, checkSpan(0, 5)...)
		})
		res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "explicit-abort"))
		checkWant(t, res, verdict.Pass, nil)
	})
}

// Must fail: a record archived at the delivery limit (or rejected) is lost
// and archived, and archived is allowed nowhere, not even where implicit may
// lose records.
func TestCheckArchived(t *testing.T) {
	c := newCheckCell(ctp.Implicit, "", 4)
	w1 := c.worker("w1.1")
	w1.poll(10, 0) // the 10th delivery of r-000000, never processed
	recs := w1.poll(1, 1)
	w1.ack(history.AckReject, recs)
	w1.process(1, 2, 3)
	res := check.Run(c.obs, checkAllowed(t, ctp.Implicit, "explicit-abort"))
	checkWant(t, res, verdict.Anomaly, map[string]int{
		verdict.AnomalyLost: 2, verdict.AnomalyAckWithoutOutput: 2, verdict.AnomalyArchived: 2})
	if !reflect.DeepEqual(res.Disallowed, []string{verdict.AnomalyArchived}) {
		t.Errorf("disallowed %v, want only archived", res.Disallowed)
	}
	ex := res.Anomalies[verdict.AnomalyArchived].Examples
	if len(ex) != 2 || !strings.Contains(ex[0].Summary, "delivered 10 times, the limit is 10") ||
		!strings.Contains(ex[1].Summary, "rejected by w1.1") {
		t.Errorf("archived examples %+v", ex)
	}
}

// Must fail: a visible output of a transaction its worker saw aborted, or of
// one whose worker never invoked commit (crash-after-send). Must pass: a
// commit of unknown outcome may show.
func TestCheckAbortedRead(t *testing.T) {
	t.Run("abort-ok", func(t *testing.T) {
		c := checkAbortedBatch(ctp.Explicit, func(w *checkWorker, recs []history.Rec) {
			w.ack(history.AckRelease, recs)
			w.outputs(1, recs[:1]) // the aborted transaction's first output shows
			w.process(2, checkSpan(0, 5)...)
		})
		res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "explicit-abort"))
		checkWant(t, res, verdict.Anomaly, map[string]int{
			verdict.AnomalyAbortedRead: 1, verdict.AnomalyTornTransaction: 1, verdict.AnomalyDuplicate: 1})
		if s := res.Anomalies[verdict.AnomalyAbortedRead].Examples[0].Summary; !strings.Contains(s, "w1.1 txn 1") ||
			!strings.Contains(s, "abort ok") {
			t.Errorf("summary %q", s)
		}
	})
	t.Run("commit-fail", func(t *testing.T) {
		c := newCheckCell(ctp.Transactional, "native", 5)
		w1 := c.worker("w1.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		txn := w1.begin()
		w1.send(recs)
		w1.txnAcks(recs)
		w1.commit(recs, history.Fail)
		w1.outputs(txn, recs)
		res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "steady"))
		checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyAbortedRead: 5})
	})
	t.Run("never-committed", func(t *testing.T) {
		c := newCheckCell(ctp.Explicit, "", 5)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		txn := w1.begin()
		w1.send(recs)
		w1.fault("crash-after-send", ctp.PointAfterSend)
		w1.outputs(txn, recs) // the broker should have aborted it
		w2.process(2, checkSpan(0, 5)...)
		res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "crash-after-send"))
		checkWant(t, res, verdict.Anomaly, map[string]int{
			verdict.AnomalyAbortedRead: 5, verdict.AnomalyDuplicate: 5})
		if s := res.Anomalies[verdict.AnomalyAbortedRead].Examples[0].Summary; !strings.Contains(s, "never invoked commit") {
			t.Errorf("summary %q", s)
		}
	})
	t.Run("commit-info-visible-passes", func(t *testing.T) {
		c := newCheckCell(ctp.Explicit, "", 5)
		w1 := c.worker("w1.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		txn := w1.begin()
		w1.send(recs)
		w1.commit(recs, history.Info)
		w1.ack(history.AckRelease, recs)
		w1.outputs(txn, recs) // it did commit
		w1.poll(2, checkSpan(0, 5)...)
		w1.ack(history.AckAccept, recs) // the next holder saw it committed (ledger-style)
		res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "steady"))
		checkWant(t, res, verdict.Pass, nil)
	})
}

// Must fail: a transaction with only part of its output visible. Must pass:
// a commit of unknown outcome that shows nothing.
func TestCheckTornTransaction(t *testing.T) {
	t.Run("part-visible", func(t *testing.T) {
		c := newCheckCell(ctp.Transactional, "ledger", 5)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		txn := w1.begin()
		w1.send(recs)
		w1.txnAcks(recs)
		w1.commit(recs, history.Info)
		w1.ack(history.AckRelease, recs)
		w1.outputs(txn, recs[:3])
		w2.process(2, 3, 4) // r-3, r-4 get their output elsewhere: nothing is lost
		res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "steady"))
		checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyTornTransaction: 1})
		ex := res.Anomalies[verdict.AnomalyTornTransaction].Examples[0]
		if ex.Record != "r-000003" || !strings.Contains(ex.Summary, "w1.1 txn 1 produced 5 outputs but only 3 are visible; missing: r-000003, r-000004") {
			t.Errorf("example %+v", ex)
		}
	})
	t.Run("unknown-commit-nothing-visible", func(t *testing.T) {
		c := newCheckCell(ctp.Transactional, "ledger", 5)
		w1, w2 := c.worker("w1.1"), c.worker("w2.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.begin()
		w1.send(recs)
		w1.txnAcks(recs)
		w1.commit(recs, history.Info)
		w1.ack(history.AckRelease, recs)
		w2.process(2, checkSpan(0, 5)...)
		res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "steady"))
		checkWant(t, res, verdict.Pass, nil)
	})
}

// Must fail: outputs that belong to no input: an unknown key, a value that is
// not the transform of the input, a src that points elsewhere, another topic.
func TestCheckPhantoms(t *testing.T) {
	c := checkCleanRun(ctp.Explicit, "")
	good := c.obs.Outputs[0]
	bad := func(mut func(o *ctp.Output)) {
		o := good
		o.Offset = int64(len(c.obs.Outputs))
		mut(&o)
		c.obs.Outputs = append(c.obs.Outputs, o)
	}
	bad(func(o *ctp.Output) { o.Key = "r-999999"; o.Value = ctp.Transform(ctp.Payload(o.Key)) })
	bad(func(o *ctp.Output) {
		o.Key = ctp.InputID(1)
		o.Value = "processed(payload:r-000002)"
		o.Src = ctp.Src(checkInputTopic, 0, 1)
	})
	bad(func(o *ctp.Output) {
		o.Key = ctp.InputID(2)
		o.Value = ctp.Transform(ctp.Payload(o.Key))
		o.Src = ctp.Src(checkInputTopic, 0, 7)
	})
	bad(func(o *ctp.Output) {
		o.Key = ctp.InputID(3)
		o.Value = ctp.Transform(ctp.Payload(o.Key))
		o.Src = ctp.Src("other", 0, 3)
	})
	bad(func(o *ctp.Output) {
		o.Key = ctp.InputID(4)
		o.Value = ctp.Transform(ctp.Payload(o.Key))
		o.Src = "garbage"
	})
	res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "broker-kill"))
	checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyPhantomOutput: 5})
	if res.Counts.Phantoms != 5 || res.Counts.Duplicated != 0 || res.Counts.Processed != 30 {
		t.Errorf("counts %+v: phantoms are no processing, so no duplicates", res.Counts)
	}
	ex := res.Anomalies[verdict.AnomalyPhantomOutput].Examples
	if len(ex) != 3 || ex[0].Record != "r-000001" || ex[1].Record != "r-000002" || ex[2].Record != "r-000003" {
		t.Fatalf("examples not the first three by record: %+v", ex)
	}
	for i, want := range []string{"its value", "not where the input was seeded", `names topic "other"`} {
		if !strings.Contains(ex[i].Summary, want) {
			t.Errorf("example %s: %q lacks %q", ex[i].Record, ex[i].Summary, want)
		}
	}
}

// checkPendingRedelivery: w1.1 puts the acks of r-0..4 into its transaction
// and stalls; w2.1 polls the same records (lock expired), then w1.1 commits.
// w2.1 then aborts its own copy, so nothing is duplicated: only the
// redelivery itself is wrong.
func checkPendingRedelivery(realization string) *checkCell {
	c := newCheckCell(ctp.Transactional, realization, 5)
	w1, w2 := c.worker("w1.1"), c.worker("w2.1")
	recs := w1.poll(1, checkSpan(0, 5)...)
	txn := w1.begin()
	w1.send(recs)
	w1.txnAcks(recs)
	w1.fault("lock-expiry-during-txn", ctp.PointBeforeCommit)
	again := w2.poll(2, checkSpan(0, 5)...)
	w1.commit(recs, history.OK)
	w1.outputs(txn, recs)
	w2.begin()
	w2.send(again)
	w2.abort()
	return c
}

// Must fail in native: a record acquired again while its acks were pending.
// Must pass in ledger (the ledger decides there) and when the second poll
// comes after the first worker's outcome or death.
func TestCheckRedeliveredWhilePending(t *testing.T) {
	t.Run("native", func(t *testing.T) {
		res := check.Run(checkPendingRedelivery("native").obs,
			checkAllowed(t, ctp.Transactional, "lock-expiry-during-txn"))
		checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyRedeliveredWhilePending: 5})
		ex := res.Anomalies[verdict.AnomalyRedeliveredWhilePending].Examples[0]
		if ex.Record != "r-000000" || !strings.Contains(ex.Summary, "polled by w2.1") ||
			!strings.Contains(ex.Summary, "w1.1 txn 1 held its ack pending") || !strings.Contains(ex.Summary, "commit ok") {
			t.Errorf("example %+v", ex)
		}
		if !strings.HasPrefix(ex.Fault, "lock-expiry-during-txn") {
			t.Errorf("fault %q", ex.Fault)
		}
	})
	t.Run("ledger", func(t *testing.T) {
		res := check.Run(checkPendingRedelivery("ledger").obs,
			checkAllowed(t, ctp.Transactional, "lock-expiry-during-txn"))
		checkWant(t, res, verdict.Pass, nil)
	})
	// The holder's transaction timed out before the redelivery: the
	// coordinator aborted it, nothing was pending any more. Committed, the
	// same transaction did hold the acks pending.
	timedOut := func(outcome history.Type) *checkCell {
		c := newCheckCell(ctp.Transactional, "native", 5)
		w1 := c.workerWithTimeout("w1.1", 10*time.Millisecond)
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.begin()
		w1.send(recs)
		w1.txnAcks(recs)
		w1.fault("lock-expiry-during-txn", ctp.PointBeforeCommit)
		c.now += int64(20 * time.Millisecond) // the stall
		c.worker("w2.1").process(2, checkSpan(0, 5)...)
		w1.commit(recs, outcome)
		return c
	}
	t.Run("native/holder-timed-out", func(t *testing.T) {
		res := check.Run(timedOut(history.Fail).obs, checkAllowed(t, ctp.Transactional, "lock-expiry-during-txn"))
		checkWant(t, res, verdict.Pass, nil)
	})
	t.Run("native/holder-committed-after-its-timeout", func(t *testing.T) {
		c := timedOut(history.OK)
		for i := range 5 {
			c.output("w1.1", 1, i)
		}
		res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "lock-expiry-during-txn"))
		if res.Anomalies[verdict.AnomalyRedeliveredWhilePending].Count != 5 {
			t.Errorf("anomalies %v, want %s 5", res.Anomalies, verdict.AnomalyRedeliveredWhilePending)
		}
	})
	t.Run("native/after-the-holder-died", func(t *testing.T) {
		c := newCheckCell(ctp.Transactional, "native", 5)
		w1 := c.worker("w1.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.begin()
		w1.send(recs)
		w1.txnAcks(recs)
		w1.fault("crash-after-acks", ctp.PointAfterAcks) // and SIGKILL
		c.worker("w1.2").process(2, checkSpan(0, 5)...)
		res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "crash-after-acks"))
		checkWant(t, res, verdict.Pass, nil)
	})
	// A zombie (SIGSTOPped, connection up) is fenced by its replacement's
	// InitProducerId: once w1.2 started with w1.1's transactional id, w1.1's
	// transaction can no longer commit, whatever w1.1 writes when it wakes.
	zombie := func(replacementTxnID string) *checkCell {
		c := newCheckCell(ctp.Transactional, "native", 5)
		w1 := c.worker("w1.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.begin()
		w1.send(recs)
		w1.txnAcks(recs)
		w1.fault("zombie-fenced", ctp.PointBeforeCommit) // SIGSTOP
		w2 := c.workerWithTxnID("w1.2", replacementTxnID)
		w2.process(2, checkSpan(0, 5)...)
		w1.commit(recs, history.Info) // SIGCONT: fenced
		w1.ack(history.AckRelease, recs)
		return c
	}
	t.Run("native/zombie-fenced-by-same-id", func(t *testing.T) {
		res := check.Run(zombie("txid-w1").obs, checkAllowed(t, ctp.Transactional, "zombie-fenced"))
		checkWant(t, res, verdict.Pass, nil)
	})
	t.Run("native/zombie-with-fresh-id", func(t *testing.T) {
		res := check.Run(zombie("txid-fresh").obs, checkAllowed(t, ctp.Transactional, "zombie-fenced"))
		checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyRedeliveredWhilePending: 5})
	})
}

// Must be UNKNOWN: ids with no output that the share group was not done
// with, or whose partition's share start is unknown, are liveness.
func TestCheckUnseenIsUnknown(t *testing.T) {
	t.Run("start-below", func(t *testing.T) {
		c := newCheckCell(ctp.Transactional, "ledger", 5)
		c.worker("w1.1").process(1, 0, 1, 2)
		c.obs.ShareStart[0] = 3
		res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "steady"))
		checkWant(t, res, verdict.Unknown, map[string]int{verdict.AnomalyUnseen: 2})
		if res.Counts.Unseen != 2 || res.Counts.Lost != 0 || !strings.Contains(res.Reason, "2 of 5 input ids unseen") {
			t.Errorf("counts %+v, reason %q", res.Counts, res.Reason)
		}
	})
	t.Run("start-unknown", func(t *testing.T) {
		c := newCheckCell(ctp.Transactional, "ledger", 5)
		c.worker("w1.1").process(1, 0, 1, 2)
		delete(c.obs.ShareStart, 0)
		res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "steady"))
		checkWant(t, res, verdict.Unknown, map[string]int{verdict.AnomalyUnseen: 2})
		if !strings.Contains(res.Reason, "share start offset unknown for input partitions [0]") {
			t.Errorf("reason %q", res.Reason)
		}
	})
	t.Run("anomaly-wins", func(t *testing.T) {
		c := checkCrashAfterCommit(ctp.Transactional, "ledger")
		for i := 10; i < 12; i++ { // r-10, r-11 seeded, not reached yet
			c.obs.Inputs = append(c.obs.Inputs, ctp.Input{ID: ctp.InputID(i), Partition: 0, Offset: int64(i)})
		}
		res := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "crash-after-commit"))
		checkWant(t, res, verdict.Anomaly, map[string]int{verdict.AnomalyDuplicate: 5, verdict.AnomalyUnseen: 2})
	})
	t.Run("no-input", func(t *testing.T) {
		res := check.Run(ctp.Observation{Mode: ctp.Explicit}, checkAllowed(t, ctp.Explicit, "steady"))
		checkWant(t, res, verdict.Unknown, nil)
	})
}

// A cell whose mode has no such point is N/A, never PASS.
func TestCheckNotApplicable(t *testing.T) {
	res := check.Run(checkCleanRun(ctp.Explicit, "").obs, checkAllowed(t, ctp.Explicit, "crash-after-acks"))
	if res.Verdict != verdict.NA || !strings.Contains(res.Reason, "n/a") {
		t.Errorf("verdict %s reason %q, want N/A", res.Verdict, res.Reason)
	}
}

// The same observation gives the same result: examples do not depend on map
// order, and stay within MaxExamples, sorted by record.
func TestCheckDeterministic(t *testing.T) {
	c := checkCrashAfterCommit(ctp.Transactional, "native")
	c.obs.ShareStart[0] = 8
	c.obs.Outputs = c.obs.Outputs[:len(c.obs.Outputs)-4]
	first := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "steady"))
	for range 20 {
		if again := check.Run(c.obs, checkAllowed(t, ctp.Transactional, "steady")); !reflect.DeepEqual(first, again) {
			t.Fatalf("results differ:\n%+v\n%+v", first, again)
		}
	}
	for name, f := range first.Anomalies {
		if len(f.Examples) > verdict.MaxExamples {
			t.Errorf("%s: %d examples", name, len(f.Examples))
		}
		for i := 1; i < len(f.Examples); i++ {
			if f.Examples[i-1].Record > f.Examples[i].Record {
				t.Errorf("%s: examples not sorted by record", name)
			}
		}
	}
	if !first.HistoryStart.Equal(time.Unix(0, checkEpoch)) {
		t.Errorf("history start %v", first.HistoryStart)
	}
	if len(first.Faults) != 1 || first.Faults[0].Name != "crash-after-commit" || first.Faults[0].Worker != "w1.1" {
		t.Errorf("faults %+v", first.Faults)
	}
}

// An id the seeder wrote twice counts once; an output may name either copy,
// and the id is lost only when the group is done with both.
func TestCheckReseededInput(t *testing.T) {
	c := newCheckCell(ctp.Explicit, "", 4)
	c.obs.Inputs = append(c.obs.Inputs, ctp.Input{ID: ctp.InputID(1), Partition: 0, Offset: 4})
	c.obs.ShareStart[0], c.obs.InputEnd[0] = 5, 5
	c.worker("w1.1").process(1, 0, 2, 3)
	c.output("w9.1", 1, 1)
	c.obs.Outputs[len(c.obs.Outputs)-1].Src = ctp.Src(checkInputTopic, 0, 4)
	res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "steady"))
	checkWant(t, res, verdict.Pass, nil)
	if res.Counts.Input != 4 || res.Counts.Processed != 4 {
		t.Errorf("counts %+v", res.Counts)
	}

	c.obs.Outputs = c.obs.Outputs[:len(c.obs.Outputs)-1]
	c.obs.ShareStart[0] = 3 // done with the first copy of r-000001 only
	res = check.Run(c.obs, checkAllowed(t, ctp.Explicit, "steady"))
	checkWant(t, res, verdict.Unknown, map[string]int{verdict.AnomalyUnseen: 1})
}

// A stalled worker's transaction commits after its records' locks expired
// and another worker committed their second delivery: the outputs come in
// the other order of the deliveries, a redelivery all the same (implicit
// mode allows duplicates, lock-expiry-before-commit). The same delivery
// committed by two workers stays unexplained.
func TestDuplicateOfAStalledEarlierDelivery(t *testing.T) {
	build := func(secondDelivery int32) *checkCell {
		c := newCheckCell(ctp.Implicit, "", 3)
		w1 := c.worker("w1.1")
		recs := w1.poll(1, checkSpan(0, 3)...)
		txn := w1.begin()
		w1.send(recs)
		w1.fault("lock-expiry-before-commit", ctp.PointBeforeCommit)
		w2 := c.worker("w2.1")
		w2.process(secondDelivery, checkSpan(0, 3)...)
		w1.commit(recs, history.OK)
		w1.outputs(txn, recs)
		w1.stop("")
		w2.stop("")
		return c
	}
	res := check.Run(build(2).obs, checkAllowed(t, ctp.Implicit, "lock-expiry-before-commit"))
	checkWant(t, res, verdict.Pass, map[string]int{verdict.AnomalyDuplicate: 3})
	res = check.Run(build(1).obs, checkAllowed(t, ctp.Implicit, "lock-expiry-before-commit"))
	if res.Anomalies[verdict.AnomalyDuplicateUnexplained].Count != 3 {
		t.Errorf("one delivery committed by two workers: anomalies %v, want %s 3", res.Anomalies, verdict.AnomalyDuplicateUnexplained)
	}
}
