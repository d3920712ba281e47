package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// loadCell is an explicit broker-kill cell of ten records in two batches,
// clean, with the orchestrator's firing and heal placed after the first
// batch's commit (between) or after both batches (after).
type loadCell struct {
	obs ctp.Observation
	now int64
}

func (c *loadCell) add(e history.Event) {
	c.now += int64(time.Millisecond)
	e.TS = c.now
	c.obs.History = append(c.obs.History, e)
}

// batch is one clean explicit transaction of r-from..to-1 by w1.1, its
// outputs visible.
func (c *loadCell) batch(seq int64, from, to int) {
	var recs []history.Rec
	var ids []string
	for i := from; i < to; i++ {
		recs = append(recs, history.Rec{ID: ctp.InputID(i), Offset: int64(i), Delivery: 1})
		ids = append(ids, ctp.InputID(i))
		c.obs.Outputs = append(c.obs.Outputs, ctp.Output{Key: ctp.InputID(i), Value: ctp.Transform(ctp.Payload(ctp.InputID(i))),
			Src: ctp.Src("in", 0, int64(i)), Worker: "w1.1", Txn: seq, Offset: int64(i)})
	}
	for _, e := range []history.Event{
		{Type: history.OK, F: history.FPoll, Records: recs},
		{Type: history.OK, F: history.FBegin, Txn: seq},
		{Type: history.OK, F: history.FSend, Txn: seq, IDs: ids},
		{Type: history.Invoke, F: history.FCommit, Txn: seq, Records: recs},
		{Type: history.OK, F: history.FCommit, Txn: seq, Records: recs},
		{Type: history.OK, F: history.FAck, Ack: history.AckAccept, Records: recs},
	} {
		e.Worker = "w1.1"
		c.add(e)
	}
}

func (c *loadCell) fault() {
	c.add(history.Event{Worker: history.Orchestrator, Type: history.Info, F: history.FFaultFired, Fault: "broker-kill", Point: "under-load"})
	c.add(history.Event{Worker: history.Orchestrator, Type: history.Info, F: history.FHeal})
}

func newLoadCell(faultBetween bool) ctp.Observation {
	c := &loadCell{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano(), obs: ctp.Observation{
		Mode: ctp.Explicit, InputTopic: "in", DeliveryLimit: 10,
		ShareStart: map[int32]int64{0: 10}, InputEnd: map[int32]int64{0: 10},
	}}
	for i := range 10 {
		c.obs.Inputs = append(c.obs.Inputs, ctp.Input{ID: ctp.InputID(i), Offset: int64(i)})
	}
	c.add(history.Event{Worker: "w1.1", Type: history.Info, F: history.FStart, Attrs: map[string]string{"transactional_id": "t-w1"}})
	c.batch(1, 0, 5)
	if faultBetween {
		c.fault()
	}
	c.batch(2, 5, 10)
	if !faultBetween {
		c.fault()
	}
	c.add(history.Event{Worker: "w1.1", Type: history.Info, F: history.FStop})
	return c.obs
}

// A cluster fault that waits for load met it only if work began after it:
// must pass with a transaction begun after the firing; must be UNKNOWN when
// every transaction began before it (the fault fired after the load), even
// with commits before it.
func TestJudgeCellLoadAfterTheFiring(t *testing.T) {
	s, ok := scenarios.Lookup("broker-kill")
	if !ok || s.Cluster == nil || s.Cluster.AfterLoad == 0 {
		t.Fatal("broker-kill is no cluster fault that waits for load")
	}
	for _, between := range []bool{true, false} {
		cell := result.Cell{Scenario: s.Name, Mode: string(ctp.Explicit)}
		Cell(&cell, newLoadCell(between), s, scenarios.Conditions{})
		switch {
		case between && cell.Verdict != verdict.Pass:
			t.Errorf("a transaction began after the firing: %s (%s), want PASS", cell.Verdict, cell.Reason)
		case !between && (cell.Verdict != verdict.Unknown || !strings.Contains(cell.Reason, "the fault fired after the load: no transaction began after its first firing")):
			t.Errorf("every transaction began before the firing: %s (%s), want UNKNOWN naming it", cell.Verdict, cell.Reason)
		}
	}
}

// nativeSteady is a clean native cell of r-0..3 in two transactions; with
// spanning, each transaction's acks cover partitions 0 and 1, else each one
// partition.
func nativeSteady(spanning bool) ctp.Observation {
	c := &loadCell{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano(), obs: ctp.Observation{
		Mode: ctp.Transactional, Realization: ctp.RealizationNative, InputTopic: "in", DeliveryLimit: 10,
		ShareStart: map[int32]int64{0: 2, 1: 2}, InputEnd: map[int32]int64{0: 2, 1: 2},
	}}
	part := func(i int) int32 { return int32(i % 2) }
	offset := func(i int) int64 { return int64(i / 2) }
	if !spanning {
		part = func(i int) int32 { return int32(i / 2) }
		offset = func(i int) int64 { return int64(i % 2) }
	}
	for i := range 4 {
		c.obs.Inputs = append(c.obs.Inputs, ctp.Input{ID: ctp.InputID(i), Partition: part(i), Offset: offset(i)})
	}
	c.add(history.Event{Worker: "w1.1", Type: history.Info, F: history.FStart, Realization: ctp.RealizationNative,
		Attrs: map[string]string{"transactional_id": "t-w1"}})
	for seq, ids := range [][]int{{0, 1}, {2, 3}} {
		var recs []history.Rec
		var keys []string
		for _, i := range ids {
			recs = append(recs, history.Rec{ID: ctp.InputID(i), Partition: part(i), Offset: offset(i), Delivery: 1})
			keys = append(keys, ctp.InputID(i))
			c.obs.Outputs = append(c.obs.Outputs, ctp.Output{Key: ctp.InputID(i), Value: ctp.Transform(ctp.Payload(ctp.InputID(i))),
				Src: ctp.Src("in", part(i), offset(i)), Worker: "w1.1", Txn: int64(seq + 1), Offset: int64(i)})
		}
		txn := int64(seq + 1)
		for _, e := range []history.Event{
			{Type: history.OK, F: history.FPoll, Records: recs},
			{Type: history.OK, F: history.FBegin, Txn: txn},
			{Type: history.OK, F: history.FSend, Txn: txn, IDs: keys},
			{Type: history.OK, F: history.FTxnAcks, Txn: txn, Records: recs},
			{Type: history.Invoke, F: history.FCommit, Txn: txn, Records: recs},
			{Type: history.OK, F: history.FCommit, Txn: txn, Records: recs},
		} {
			e.Worker = "w1.1"
			c.add(e)
		}
	}
	c.add(history.Event{Worker: "w1.1", Type: history.Info, F: history.FStop})
	return c.obs
}

// The steady row's native cells must show a transaction whose acks spanned
// share-partitions where the shape allows one (a broker that commits only
// the first partition's acks passes cells without): must pass with one,
// must be UNKNOWN without, and is not asked where no worker was bound to
// hold two partitions or a poll could hold one record only.
func TestJudgeCellSpanningAcks(t *testing.T) {
	s, _ := scenarios.Lookup("steady")
	// Two brokers: one worker's two partitions are bound to span, not to
	// share a request (TestAcksSharedARequestEvidence).
	shape := scenarios.Conditions{Shape: scenarios.Shape{Workers: 1, Partitions: 2, Batch: 10, Brokers: 2}}
	for _, tc := range []struct {
		spanning bool
		conds    scenarios.Conditions
		want     verdict.Verdict
	}{
		{true, shape, verdict.Pass},
		{false, shape, verdict.Unknown},
		{false, scenarios.Conditions{Shape: scenarios.Shape{Workers: 2, Partitions: 2, Batch: 10, Brokers: 3}}, verdict.Pass},
		{false, scenarios.Conditions{Shape: scenarios.Shape{Workers: 1, Partitions: 2, Batch: 1, Brokers: 3}}, verdict.Pass},
	} {
		cell := result.Cell{Scenario: s.Name, Mode: string(ctp.Transactional), Realization: ctp.RealizationNative}
		Cell(&cell, nativeSteady(tc.spanning), s, tc.conds)
		if cell.Verdict != tc.want || (tc.want == verdict.Unknown && !strings.Contains(cell.Reason, "acks spanned share-partitions")) {
			t.Errorf("spanning %v, shape %+v: %s (%s), want %s", tc.spanning, tc.conds.Shape, cell.Verdict, cell.Reason, tc.want)
		}
	}
}
