package check_test

import (
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// checkInputTopic is the input topic of every hand-written cell.
const checkInputTopic = "in"

// checkEpoch is the wall clock of a hand-written cell's first event.
var checkEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano()

// checkCell builds an observation by hand, the way workers would record it:
// n inputs r-000000.. on partition 0 at offsets 0.., a share group done with
// all of them, and a clock that ticks one millisecond per event.
type checkCell struct {
	obs ctp.Observation
	now int64
}

func newCheckCell(mode ctp.AckMode, realization string, n int) *checkCell {
	c := &checkCell{now: checkEpoch, obs: ctp.Observation{
		Mode: mode, Realization: realization,
		ShareStart: map[int32]int64{0: int64(n)}, InputEnd: map[int32]int64{0: int64(n)},
		DeliveryLimit: 10,
	}}
	for i := range n {
		c.obs.Inputs = append(c.obs.Inputs, ctp.Input{ID: ctp.InputID(i), Partition: 0, Offset: int64(i)})
	}
	return c
}

func (c *checkCell) add(e history.Event) {
	e.TS = c.now
	c.now += int64(time.Millisecond)
	c.obs.History = append(c.obs.History, e)
}

// output makes the committed output of input i from worker's txn visible.
func (c *checkCell) output(worker string, txn int64, i int) {
	id := ctp.InputID(i)
	c.obs.Outputs = append(c.obs.Outputs, ctp.Output{
		Key: id, Value: ctp.Transform(ctp.Payload(id)), Src: ctp.Src(checkInputTopic, 0, int64(i)),
		Worker: worker, Txn: txn, Partition: 0, Offset: int64(len(c.obs.Outputs)),
	})
}

// worker starts a worker incarnation ("w1.1") writing to this cell. Its
// transactional id is its slot's ("w1"), so a replacement reuses it, as by
// default (ORACLE.md).
func (c *checkCell) worker(name string) *checkWorker {
	slot, _, _ := strings.Cut(name, ".")
	return c.workerWithTxnID(name, "txid-"+slot)
}

// workerWithTxnID starts a worker with the given transactional id.
func (c *checkCell) workerWithTxnID(name, txnID string) *checkWorker {
	c.add(history.Event{Worker: name, Type: history.Info, F: history.FStart, Realization: c.obs.Realization,
		Attrs: map[string]string{"mode": string(c.obs.Mode), "transactional_id": txnID}})
	return &checkWorker{c: c, name: name}
}

// workerWithTimeout starts a worker whose start event names its
// transaction timeout.
func (c *checkCell) workerWithTimeout(name string, d time.Duration) *checkWorker {
	slot, _, _ := strings.Cut(name, ".")
	c.add(history.Event{Worker: name, Type: history.Info, F: history.FStart, Realization: c.obs.Realization,
		Attrs: map[string]string{"mode": string(c.obs.Mode), "transactional_id": "txid-" + slot, history.AttrTxnTimeout: d.String()}})
	return &checkWorker{c: c, name: name}
}

// checkWorker writes one worker's events in the order the CTP loop does.
type checkWorker struct {
	c    *checkCell
	name string
	seq  int64
}

func (w *checkWorker) add(e history.Event) { e.Worker = w.name; w.c.add(e) }

// poll acquires inputs ids with the given delivery count.
func (w *checkWorker) poll(delivery int32, ids ...int) []history.Rec {
	recs := make([]history.Rec, len(ids))
	for i, id := range ids {
		recs[i] = history.Rec{ID: ctp.InputID(id), Partition: 0, Offset: int64(id), Delivery: delivery}
	}
	w.add(history.Event{Type: history.OK, F: history.FPoll, Records: recs})
	return recs
}

// begin opens the next transaction and returns its sequence number.
func (w *checkWorker) begin() int64 {
	w.seq++
	w.add(history.Event{Type: history.Invoke, F: history.FBegin, Txn: w.seq})
	w.add(history.Event{Type: history.OK, F: history.FBegin, Txn: w.seq})
	return w.seq
}

// send produces the outputs of recs in the open transaction and flushes.
func (w *checkWorker) send(recs []history.Rec) {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	w.add(history.Event{Type: history.Invoke, F: history.FSend, Txn: w.seq, IDs: ids})
	w.add(history.Event{Type: history.OK, F: history.FSend, Txn: w.seq, IDs: ids})
	w.add(history.Event{Type: history.OK, F: history.FFlush, Txn: w.seq})
}

// txnAcks puts the acks of recs into the open transaction.
func (w *checkWorker) txnAcks(recs []history.Rec) {
	w.add(history.Event{Type: history.Invoke, F: history.FTxnAcks, Txn: w.seq, Records: recs})
	w.add(history.Event{Type: history.OK, F: history.FTxnAcks, Txn: w.seq, Records: recs})
	w.add(history.Event{Type: history.Invoke, F: history.FValidate, Txn: w.seq})
	w.add(history.Event{Type: history.OK, F: history.FValidate, Txn: w.seq})
}

// commit invokes the commit and records its outcome (ok, fail or info).
func (w *checkWorker) commit(recs []history.Rec, outcome history.Type) {
	w.add(history.Event{Type: history.Invoke, F: history.FCommit, Txn: w.seq, Records: recs})
	e := history.Event{Type: outcome, F: history.FCommit, Txn: w.seq, Records: recs}
	if outcome != history.OK {
		e.Error = "commit went wrong"
	}
	w.add(e)
}

func (w *checkWorker) abort() {
	w.add(history.Event{Type: history.Invoke, F: history.FAbort, Txn: w.seq, Error: "validation failed"})
	w.add(history.Event{Type: history.OK, F: history.FAbort, Txn: w.seq})
}

func (w *checkWorker) ack(kind string, recs []history.Rec) {
	w.add(history.Event{Type: history.Invoke, F: history.FAck, Ack: kind, Records: recs})
	w.add(history.Event{Type: history.OK, F: history.FAck, Ack: kind, Records: recs})
}

func (w *checkWorker) fault(name string, point ctp.Point) {
	w.add(history.Event{Type: history.Info, F: history.FFaultFired, Fault: name, Point: string(point)})
}

// faultAction fires a fault the way the worker records it, naming its action.
func (w *checkWorker) faultAction(name string, point ctp.Point, action ctp.Action) {
	w.add(history.Event{Type: history.Info, F: history.FFaultFired, Fault: name, Point: string(point), Txn: w.seq,
		Attrs: map[string]string{"action": string(action)}})
}

// resumed records that a worker stopped by its fault runs again.
func (w *checkWorker) resumed() {
	w.add(history.Event{Type: history.Info, F: history.FResumed, Txn: w.seq})
}

// stop writes the worker's stop event (it lived to close its clients).
func (w *checkWorker) stop(err string) {
	w.add(history.Event{Type: history.Info, F: history.FStop, Error: err})
}

// ackOutcome invokes an ack of recs and records outcome (ok, fail or info).
func (w *checkWorker) ackOutcome(kind string, recs []history.Rec, outcome history.Type) {
	w.add(history.Event{Type: history.Invoke, F: history.FAck, Ack: kind, Records: recs})
	e := history.Event{Type: outcome, F: history.FAck, Ack: kind, Records: recs}
	if outcome != history.OK {
		e.Error = "ack went wrong"
	}
	w.add(e)
}

// outputs makes the transaction's outputs of recs visible.
func (w *checkWorker) outputs(txn int64, recs []history.Rec) {
	for _, r := range recs {
		w.c.output(w.name, txn, int(r.Offset))
	}
}

// process runs the happy path of one batch in the cell's mode: poll, begin,
// send, (acks in the transaction), commit ok, outputs visible, ACCEPT
// (implicit leaves the accept to its next poll).
func (w *checkWorker) process(delivery int32, ids ...int) int64 {
	recs := w.poll(delivery, ids...)
	txn := w.commitBatch(recs)
	w.acceptAfterCommit(recs)
	return txn
}

// commitBatch runs begin .. commit ok for recs and makes the outputs visible.
func (w *checkWorker) commitBatch(recs []history.Rec) int64 {
	txn := w.begin()
	w.send(recs)
	if w.c.obs.Mode == ctp.Transactional {
		w.txnAcks(recs)
	}
	w.commit(recs, history.OK)
	w.outputs(txn, recs)
	return txn
}

func (w *checkWorker) acceptAfterCommit(recs []history.Rec) {
	if w.c.obs.Mode != ctp.Implicit {
		w.ack(history.AckAccept, recs)
	}
}

// checkSpan is ids from..to-1.
func checkSpan(from, to int) []int {
	ids := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		ids = append(ids, i)
	}
	return ids
}

// heal records the orchestrator's heal of a cluster fault.
func (w *checkWorker) heal() {
	w.add(history.Event{Type: history.Info, F: history.FHeal})
}

// healWaited records a heal that then waited d for the cut-off broker to
// rejoin (its `waited` attribute).
func (w *checkWorker) healWaited(d time.Duration) {
	w.add(history.Event{Type: history.Info, F: history.FHeal, Attrs: map[string]string{"waited": d.String()}})
}

// prepare records a cluster fault's preparation that moved leaders for took.
func (w *checkWorker) prepare(name, movedOff string, took time.Duration) {
	w.add(history.Event{Type: history.Info, F: history.FFaultPrepare, Fault: name,
		Attrs: map[string]string{"moved_off": movedOff, "took": took.String()}})
}
