package check_test

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// checkPart returns the verdict of the named sub-checker.
func checkPart(t *testing.T, res check.Result, name string) check.PartVerdict {
	t.Helper()
	for _, p := range res.Parts {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no part %s in %+v", name, res.Parts)
	return check.PartVerdict{}
}

// crashAfterSend: w1.1 sends r-0..4, fires crash-after-send (kill), and then
// does whatever late does; its replacement w1.2 processes everything.
func crashAfterSend(mode ctp.AckMode, late func(w *checkWorker, recs []history.Rec)) *checkCell {
	c := newCheckCell(mode, "", 5)
	w1 := c.worker("w1.1")
	recs := w1.poll(1, checkSpan(0, 5)...)
	w1.begin()
	w1.send(recs)
	w1.faultAction("crash-after-send", ctp.PointAfterSend, ctp.ActionKill)
	late(w1, recs)
	c.worker("w1.2").process(2, checkSpan(0, 5)...)
	return c
}

// Must pass: a kill after which the incarnation writes nothing. Must be
// UNKNOWN: one after which it goes on (here: commits), naming the worker and
// the step.
func TestFaultPointKill(t *testing.T) {
	t.Run("acted", func(t *testing.T) {
		res := check.Run(crashAfterSend(ctp.Explicit, func(*checkWorker, []history.Rec) {}).obs,
			checkAllowed(t, ctp.Explicit, "crash-after-send"))
		checkWant(t, res, verdict.Pass, nil)
		if p := checkPart(t, res, "fault-points"); p.Verdict != verdict.Pass {
			t.Errorf("fault-points %+v", p)
		}
	})
	t.Run("went-on", func(t *testing.T) {
		c := crashAfterSend(ctp.Explicit, func(w *checkWorker, recs []history.Rec) {
			w.add(history.Event{Type: history.Invoke, F: history.FCommit, Txn: w.seq, Records: recs})
		})
		res := check.Run(c.obs, checkAllowed(t, ctp.Explicit, "crash-after-send"))
		checkWant(t, res, verdict.Unknown, nil)
		if !strings.HasPrefix(res.Reason, "the fault did not act at its point: w1.1 did commit invoke") ||
			!strings.Contains(res.Reason, "after fault-fired (crash-after-send at after-send") {
			t.Errorf("reason %q", res.Reason)
		}
		if p := checkPart(t, res, "fault-points"); p.Verdict != verdict.Unknown {
			t.Errorf("fault-points %+v", p)
		}
	})
}

// zombieCell is ORACLE.md case 5: w1.1 stops itself mid-transaction (after
// its txn-acks), w1.2 starts with the same transactional id and processes the
// batch, then w1.1 is resumed and commits with the given outcome.
func zombieCell(mode ctp.AckMode, resumed bool, outcome history.Type, errText string) *checkCell {
	c := newCheckCell(mode, "native", 5)
	w1 := c.worker("w1.1")
	recs := w1.poll(1, checkSpan(0, 5)...)
	txn := w1.begin()
	w1.send(recs)
	if mode == ctp.Transactional {
		w1.txnAcks(recs)
	}
	w1.faultAction("zombie-fenced", ctp.PointBeforeCommit, ctp.ActionStop)
	c.worker("w1.2").process(2, checkSpan(0, 5)...)
	if resumed {
		w1.resumed()
	}
	w1.add(history.Event{Type: history.Invoke, F: history.FCommit, Txn: txn, Records: recs})
	w1.add(history.Event{Type: outcome, F: history.FCommit, Txn: txn, Records: recs, Error: errText})
	if outcome == history.OK {
		w1.outputs(txn, recs)
	}
	w1.stop(errText)
	return c
}

// Must pass: the resumed zombie's commit fails fenced. Must be UNKNOWN: a
// zombie that commits without having recorded its resume went on while it
// should have been stopped.
func TestFaultPointStop(t *testing.T) {
	const fencedErr = "PRODUCER_FENCED: There is a newer producer with the same transactionalId"
	t.Run("fenced", func(t *testing.T) {
		for _, mode := range ctp.Modes {
			res := check.Run(zombieCell(mode, true, history.Info, fencedErr).obs, checkAllowed(t, mode, "zombie-fenced"))
			checkWant(t, res, verdict.Pass, nil)
		}
	})
	t.Run("not-stopped", func(t *testing.T) {
		res := check.Run(zombieCell(ctp.Explicit, false, history.Info, fencedErr).obs,
			checkAllowed(t, ctp.Explicit, "zombie-fenced"))
		checkWant(t, res, verdict.Unknown, nil)
		if !strings.Contains(res.Reason, "w1.1 did commit invoke") || !strings.Contains(res.Reason, "stopped and not yet resumed") {
			t.Errorf("reason %q", res.Reason)
		}
	})
}

// Must fail in every mode: the resumed zombie committed after its
// replacement began.
func TestZombieCommitIsAnomaly(t *testing.T) {
	for _, mode := range ctp.Modes {
		t.Run(string(mode), func(t *testing.T) {
			res := check.Run(zombieCell(mode, true, history.OK, "").obs, checkAllowed(t, mode, "zombie-fenced"))
			if res.Verdict != verdict.Anomaly || res.Anomalies[verdict.AnomalyZombieCommit].Count != 1 {
				t.Fatalf("verdict %s anomalies %v, want ANOMALY with zombie-commit 1", res.Verdict, res.Anomalies)
			}
			ex := res.Anomalies[verdict.AnomalyZombieCommit].Examples[0]
			if ex.Record != "r-000000" || !strings.Contains(ex.Summary, "w1.1 txn 1 invoked its commit") ||
				!strings.Contains(ex.Summary, "after its replacement w1.2 started") {
				t.Errorf("example %+v", ex)
			}
			if p := checkPart(t, res, "zombie-commits"); p.Verdict != verdict.Anomaly {
				t.Errorf("zombie-commits %+v", p)
			}
		})
	}
}

// Must pass: a term after which the worker aborts, releases its batch and
// stops. Must be UNKNOWN: one after which it commits (a stop that did not
// stop the transaction), naming the worker and the step.
func TestFaultPointTerm(t *testing.T) {
	cell := func(late func(w *checkWorker, recs []history.Rec)) *checkCell {
		c := newCheckCell(ctp.Explicit, "", 5)
		w1 := c.worker("w1.1")
		recs := w1.poll(1, checkSpan(0, 5)...)
		w1.begin()
		w1.send(recs)
		w1.faultAction("graceful-stop-mid-txn", ctp.PointAfterSend, ctp.ActionTerm)
		late(w1, recs)
		w1.stop("")
		c.worker("w1.2").process(2, checkSpan(0, 5)...)
		return c
	}
	t.Run("aborted", func(t *testing.T) {
		res := check.Run(cell(func(w *checkWorker, recs []history.Rec) {
			w.abort()
			w.ack(history.AckRelease, recs)
		}).obs, checkAllowed(t, ctp.Explicit, "graceful-stop-mid-txn"))
		checkWant(t, res, verdict.Pass, nil)
		if p := checkPart(t, res, "fault-points"); p.Verdict != verdict.Pass {
			t.Errorf("fault-points %+v", p)
		}
	})
	t.Run("committed", func(t *testing.T) {
		res := check.Run(cell(func(w *checkWorker, recs []history.Rec) {
			w.commit(recs, history.OK)
		}).obs, checkAllowed(t, ctp.Explicit, "graceful-stop-mid-txn"))
		if !strings.HasPrefix(res.Reason, "the fault did not act at its point: w1.1 did commit invoke") ||
			!strings.Contains(res.Reason, "aborting and stopping") {
			t.Errorf("reason %q", res.Reason)
		}
		if p := checkPart(t, res, "fault-points"); p.Verdict != verdict.Unknown {
			t.Errorf("fault-points %+v", p)
		}
	})
}
