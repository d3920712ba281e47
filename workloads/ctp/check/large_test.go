package check_test

import (
	"reflect"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
	"github.com/sharechaos/sharechaos/workloads/ctp/check/large"
)

// checkBothWays judges obs in memory and by the large path and wants the
// same Result: verdict, reason, counts, anomalies with their examples, parts.
func checkBothWays(t *testing.T, obs ctp.Observation, allowed check.Allowed) check.Result {
	t.Helper()
	mem := check.Run(obs, allowed)
	dir := t.TempDir()
	if err := large.WriteObservation(dir, obs); err != nil {
		t.Fatal(err)
	}
	got, err := large.Check(dir, allowed)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, mem) {
		t.Errorf("large path:\n%+v\nin memory:\n%+v", got, mem)
	}
	return mem
}

// The large path judges like the in-memory checker on hand-written cells
// that must pass and cells that must fail, one of every anomaly kind.
func TestLargePathJudgesLikeTheInMemoryChecker(t *testing.T) {
	lost := checkCleanRun(ctp.Explicit, "")
	lost.obs.Outputs = lost.obs.Outputs[1:]
	// The drain moved the start offset Kafka reported (lag 0): the loss's
	// example names both, on either path.
	lostMoved := checkCleanRun(ctp.Explicit, "")
	lostMoved.obs.Outputs = lostMoved.obs.Outputs[1:]
	lostMoved.obs.ShareStartReported = map[int32]int64{0: 20}
	lostMoved.obs.ShareStartRule = map[int32]string{0: ctp.RuleLagZeroIsDone}
	unseen := checkCleanRun(ctp.Explicit, "")
	unseen.obs.Outputs = unseen.obs.Outputs[1:]
	unseen.obs.ShareStart = map[int32]int64{0: 0}
	phantom := checkCleanRun(ctp.Explicit, "")
	phantom.obs.Outputs = append(phantom.obs.Outputs, ctp.Output{Key: "x-1", Value: "v", Src: "in/0/0", Worker: "w1.1", Txn: 1, Offset: 99})
	bad := phantom.obs.Outputs[2]
	bad.Value, bad.Offset = "corrupt", 100
	phantom.obs.Outputs = append(phantom.obs.Outputs, bad)

	cells := []struct {
		name     string
		c        *checkCell
		mode     ctp.AckMode
		scenario string
	}{
		{"clean", checkCleanRun(ctp.Explicit, ""), ctp.Explicit, "steady"},
		{"clean-native", checkCleanRun(ctp.Transactional, "native"), ctp.Transactional, "steady"},
		{"crash-after-commit", checkCrashAfterCommit(ctp.Explicit, ""), ctp.Explicit, "crash-after-commit"},
		{"crash-after-commit-transactional", checkCrashAfterCommit(ctp.Transactional, "native"), ctp.Transactional, "crash-after-commit"},
		{"aborted-and-torn", checkAbortedBatch(ctp.Explicit, func(w *checkWorker, recs []history.Rec) {
			w.ack(history.AckRelease, recs)
			w.outputs(1, recs[:1])
			w.process(2, checkSpan(0, 5)...)
		}), ctp.Explicit, "explicit-abort"},
		{"lost", lost, ctp.Explicit, "steady"},
		{"lost-start-moved", lostMoved, ctp.Explicit, "steady"},
		{"unseen", unseen, ctp.Explicit, "steady"},
		{"phantom-and-bad-content", phantom, ctp.Explicit, "steady"},
		{"pending-native", checkPendingRedelivery("native"), ctp.Transactional, "lock-expiry-during-txn"},
		{"pending-ledger", checkPendingRedelivery("ledger"), ctp.Transactional, "lock-expiry-during-txn"},
		{"zombie-commit-explicit", zombieCell(ctp.Explicit, true, history.OK, ""), ctp.Explicit, "zombie-fenced"},
		{"zombie-commit-transactional", zombieCell(ctp.Transactional, true, history.OK, ""), ctp.Transactional, "zombie-fenced"},
		{"fault-point-acted", crashAfterSend(ctp.Explicit, func(*checkWorker, []history.Rec) {}), ctp.Explicit, "crash-after-send"},
		{"fault-point-went-on", crashAfterSend(ctp.Explicit, func(w *checkWorker, recs []history.Rec) {
			w.add(history.Event{Type: history.Invoke, F: history.FCommit, Txn: w.seq, Records: recs})
		}), ctp.Explicit, "crash-after-send"},
		{"implicit-loss-next-poll", checkAbortedBatch(ctp.Implicit, func(w *checkWorker, _ []history.Rec) { w.poll(1, 5) }),
			ctp.Implicit, "explicit-abort"},
	}
	for _, dc := range []struct {
		name  string
		mode  ctp.AckMode
		first func(w *checkWorker, recs []history.Rec)
	}{
		{"dup-ack-failed", ctp.Explicit, func(w *checkWorker, recs []history.Rec) {
			w.commitBatch(recs)
			w.ackOutcome(history.AckAccept, recs, history.Fail)
		}},
		{"dup-released", ctp.Implicit, func(w *checkWorker, recs []history.Rec) {
			w.commitBatch(recs)
			w.poll(1, 7)
			w.stop("")
		}},
		{"dup-fenced-zombie", ctp.Implicit, func(w *checkWorker, recs []history.Rec) {
			w.commitBatch(recs)
			w.poll(1, 7)
			w.begin()
			w.faultAction("zombie-fenced", ctp.PointBeforeCommit, ctp.ActionStop)
		}},
	} {
		c := newCheckCell(dc.mode, "", 8)
		w1 := c.worker("w1.1")
		dc.first(w1, w1.poll(1, checkSpan(0, 5)...))
		w2 := c.worker("w2.1")
		w2.process(2, checkSpan(0, 5)...)
		w2.process(1, 5, 6)
		w2.process(2, 7)
		cells = append(cells, struct {
			name     string
			c        *checkCell
			mode     ctp.AckMode
			scenario string
		}{dc.name, c, dc.mode, "broker-kill"})
	}
	// Every first worker's fate after its commit (ack_fate.go), which
	// reads that worker's events after the commit.
	for _, fc := range fateCases() {
		cells = append(cells, struct {
			name     string
			c        *checkCell
			mode     ctp.AckMode
			scenario string
		}{"fate-" + fc.name, fateCell(fc.mode, fc.realization, fc.after), fc.mode, fc.row})
	}
	for _, tc := range cells {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.obs.InputTopic = checkInputTopic
			s, ok := scenarios.Lookup(tc.scenario)
			if !ok {
				t.Fatalf("no scenario %s", tc.scenario)
			}
			checkBothWays(t, tc.c.obs, s.Allowed(tc.mode))
			// The same cell among many plain records: the large path must
			// leave those out and still judge the rest the same.
			padPlain(tc.c, 200)
			checkBothWays(t, tc.c.obs, s.Allowed(tc.mode))
		})
	}
}

// padPlain adds n plain records after the cell's own, processed by a worker
// of their own in batches of 5.
func padPlain(c *checkCell, n int) {
	first := len(c.obs.Inputs)
	for i := first; i < first+n; i++ {
		c.obs.Inputs = append(c.obs.Inputs, ctp.Input{ID: ctp.InputID(i), Partition: 0, Offset: int64(i)})
	}
	if c.obs.ShareStart[0] >= int64(first) {
		c.obs.ShareStart = map[int32]int64{0: int64(first + n)}
	}
	c.obs.InputEnd = map[int32]int64{0: int64(first + n)}
	w := c.worker("w9.1")
	for i := first; i < first+n; i += 5 {
		w.process(1, checkSpan(i, i+5)...)
	}
}

// A generated run of realistic shape: the planted anomalies are found, the
// same way by both paths.
func TestLargePathOnAGeneratedRun(t *testing.T) {
	dir := t.TempDir()
	if err := large.Generate(dir, 5000); err != nil {
		t.Fatal(err)
	}
	obs, err := large.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := scenarios.Lookup("steady")
	allowed := s.Allowed(ctp.Explicit)
	mem := check.Run(obs, allowed)
	got, err := large.Check(dir, allowed)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, mem) {
		t.Errorf("large path:\n%+v\nin memory:\n%+v", got, mem)
	}
	for name, n := range large.Planted {
		if f := mem.Anomalies[name]; f.Count != n || len(f.Examples) == 0 {
			t.Errorf("%s: %+v, want %d with examples", name, f, n)
		}
	}
	if mem.Verdict != verdict.Anomaly || mem.Counts.Input != 5000 {
		t.Errorf("verdict %s, input %d", mem.Verdict, mem.Counts.Input)
	}
}
