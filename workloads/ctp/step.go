package ctp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/history"
)

// step runs one iteration of the loop: one poll and, when it brought records,
// one transaction. In implicit mode the poll itself accepts the previous batch.
func (w *Worker) step(ctx context.Context) error {
	pollCtx, cancel := context.WithTimeout(ctx, time.Second)
	batch := w.src.Poll(pollCtx, int(w.cfg.MaxRecords))
	cancel()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if len(batch) == 0 {
		return nil
	}
	w.batches++
	w.last.Records = len(batch)
	w.event(history.Event{Type: history.OK, F: history.FPoll, Records: recs(batch)})
	if poison, rest := w.cfg.Poison.split(batch); len(poison) > 0 {
		// Unprocessable: back to the broker at once, no output, until it
		// archives them (delivery-count limit) or dead-letters them.
		w.ackOutsideTxn(ctx, kgo.AckRelease, poison)
		if batch = rest; len(batch) == 0 {
			return nil
		}
	}

	if w.acker != nil {
		done, err := w.acker.PreCheck(ctx, batch)
		if err != nil {
			w.event(history.Event{Type: history.Fail, F: history.FLedger, Records: recs(batch), Error: "pre-check: " + err.Error()})
			w.ack(ctx, kgo.AckRelease, batch)
			return nil
		}
		if len(done) > 0 {
			// Someone else's committed transaction holds these records' acks:
			// accept them without processing (ARCHITECTURE.md, ledger step 2).
			w.ack(ctx, kgo.AckAccept, done)
			batch = without(batch, done)
			if len(batch) == 0 {
				return nil
			}
		}
	}

	if mutated(MutantAckBeforeCommit) && w.cfg.Mode == Explicit {
		w.ack(ctx, kgo.AckAccept, batch)
	}
	if w.armedAt(PointBeforeBegin) || w.holdsRedelivered(batch) {
		w.fire(ctx, PointBeforeBegin, batch)
	}
	return w.transact(ctx, batch)
}

// transact processes batch in one transaction and acknowledges it as the
// outcome and the mode say.
func (w *Worker) transact(ctx context.Context, batch []*kgo.Record) error {
	w.txnSeq++
	txnStart := time.Now()
	w.event(history.Event{Type: history.Invoke, F: history.FBegin, Txn: w.txnSeq})
	if err := w.producer.BeginTransaction(); err != nil {
		w.event(history.Event{Type: history.Fail, F: history.FBegin, Txn: w.txnSeq, Error: err.Error()})
		w.ack(ctx, kgo.AckRelease, batch)
		return w.replaceProducer(ctx)
	}
	w.event(history.Event{Type: history.OK, F: history.FBegin, Txn: w.txnSeq})

	reqCtx, cancel := context.WithTimeout(ctx, w.cfg.RequestTimeout.D())
	defer cancel()

	if w.armedAt(PointBeforeSend) {
		w.fire(ctx, PointBeforeSend, batch)
		if w.cfg.Arm.Action == ActionFailProduce {
			if err := w.cutOutputLeader(reqCtx); err != nil {
				w.event(history.Event{Type: history.Info, F: history.FFaultError, Fault: w.cfg.Arm.Fault, Error: err.Error()})
			}
		}
	}
	w.event(history.Event{Type: history.Invoke, F: history.FSend, Txn: w.txnSeq, IDs: ids(batch)})
	sendStart := time.Now()
	err := w.produceAll(reqCtx, batch)
	if !mutated(MutantCommitUnchecked) {
		w.breaker.heal() // one-shot: the cut lasts until this batch's produce has failed
	}
	if err != nil {
		w.event(history.Event{Type: history.Fail, F: history.FSend, Txn: w.txnSeq, IDs: ids(batch), Error: err.Error(), DurNS: since(sendStart)})
		if !mutated(MutantCommitUnchecked) {
			return w.abort(ctx, batch, "produce failed: "+err.Error())
		}
	} else {
		w.event(history.Event{Type: history.OK, F: history.FSend, Txn: w.txnSeq, IDs: ids(batch), DurNS: since(sendStart)})
	}
	if mutated(MutantCommitUnchecked) {
		// The mutant neither waited for its produces nor flushes: the
		// commit goes out with the cut outputs still buffered.
	} else if err := w.producer.Flush(reqCtx); err != nil {
		w.event(history.Event{Type: history.Fail, F: history.FFlush, Txn: w.txnSeq, Error: err.Error()})
		if !mutated(MutantCommitUnchecked) {
			return w.abort(ctx, batch, "flush failed: "+err.Error())
		}
	} else {
		w.event(history.Event{Type: history.OK, F: history.FFlush, Txn: w.txnSeq})
	}
	if w.armedAt(PointAfterSend) {
		w.fire(ctx, PointAfterSend, batch)
	}
	if stopped, err := w.abortIfStopping(ctx, batch); stopped {
		return err
	}

	if w.acker != nil && mutated(MutantAcksOutsideTxn) {
		// A plain ACCEPT in every realization: the native one too, whose
		// ack() would otherwise send nothing (it leaves acks to the
		// transaction), which made this mutant a loop that never acked.
		w.ackOutsideTxn(ctx, kgo.AckAccept, batch)
		if w.armedAt(PointAfterAcks) {
			w.fire(ctx, PointAfterAcks, batch)
		}
	} else if w.acker != nil {
		txn := Txn{Worker: w.cfg.Name(), Seq: w.txnSeq, Producer: w.producer, Consumer: w.src.Client()}
		txn.MemberID, txn.MemberEpoch = w.src.Member()
		w.event(history.Event{Type: history.Invoke, F: history.FTxnAcks, Txn: w.txnSeq, Records: recs(batch)})
		ackStart := time.Now()
		acked := batch
		if mutated(MutantAcksOnePartition) {
			acked = firstPartitionOnly(batch)
		}
		if err := w.acker.AddAcks(reqCtx, txn, acked); err != nil {
			w.event(history.Event{Type: history.Fail, F: history.FTxnAcks, Txn: w.txnSeq, Error: err.Error()})
			if Fenced(err) {
				// A newer producer owns our transactional id: we are a
				// zombie (zombie-fenced-before-acks). Nothing of ours may
				// go on: kfake even answers our abort ok (its KIP-890 retry
				// detection), and a zombie that then polls and re-registers
				// its producer fences its replacement in turn (seen on the
				// reference broker, nightly seed 31: zombie-commit 35).
				return fmt.Errorf("acks into txn %d: fenced: %w", w.txnSeq, err)
			}
			return w.abort(ctx, batch, "acks into the transaction failed: "+err.Error())
		}
		w.last.TxnAcks = time.Since(ackStart)
		if r, ok := w.acker.(AckTimingReporter); ok {
			w.last.AcksPrepare, w.last.AddShareAcksToTxn, w.last.TxnShareAcknowledge = r.AckTimes()
		}
		w.event(history.Event{Type: history.OK, F: history.FTxnAcks, Txn: w.txnSeq, Records: recs(batch), DurNS: w.last.TxnAcks.Nanoseconds(),
			Attrs: ackRequestAttrs(w.acker)})
		if w.armedAt(PointAfterAcks) {
			w.fire(ctx, PointAfterAcks, batch)
		}
		w.event(history.Event{Type: history.Invoke, F: history.FValidate, Txn: w.txnSeq})
		conflicts, err := w.acker.Validate(reqCtx, txn, batch)
		if mutated(MutantSkipValidation) {
			conflicts = nil
		}
		if err != nil {
			w.event(history.Event{Type: history.Fail, F: history.FValidate, Txn: w.txnSeq, Error: err.Error()})
			return w.abort(ctx, batch, "validation failed: "+err.Error())
		}
		if len(conflicts) > 0 {
			w.event(history.Event{Type: history.Fail, F: history.FValidate, Txn: w.txnSeq, Records: recs(conflicts),
				Error: "acks of these records were committed by another transaction first"})
			// Abort, then ACCEPT what someone else committed and RELEASE the rest.
			if err := w.abortOnly(ctx, fmt.Sprintf("%d records already committed elsewhere", len(conflicts))); err != nil {
				return err
			}
			w.ack(ctx, kgo.AckAccept, conflicts)
			w.ack(ctx, kgo.AckRelease, without(batch, conflicts))
			return nil
		}
		w.event(history.Event{Type: history.OK, F: history.FValidate, Txn: w.txnSeq})
	}

	if w.armedAt(PointBeforeCommit) {
		w.fire(ctx, PointBeforeCommit, batch)
		switch w.cfg.Arm.Action {
		case ActionAbort:
			// explicit-abort (case 6): this batch fails "validation" once.
			return w.abort(ctx, batch, "explicit abort (fault)")
		}
	}

	if stopped, err := w.abortIfStopping(ctx, batch); stopped {
		return err
	}

	w.event(history.Event{Type: history.Invoke, F: history.FCommit, Txn: w.txnSeq, Records: recs(batch)})
	commitStart := time.Now()
	// The commit never runs under the caller's cancellable context: a
	// graceful stop that cancelled EndTxn mid-flight would manufacture an
	// unknown outcome (franz-go's EndTransaction doc: do not cancel it). It is
	// bounded by the request timeout alone.
	commitCtx, cancelCommit := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.RequestTimeout.D())
	err = w.producer.EndTransaction(commitCtx, kgo.TryCommit)
	cancelCommit()
	w.breaker.heal() // the mutant commit-unchecked kept its cut until here; a no-op otherwise
	outcome := commitOutcome(err)
	e := history.Event{Type: outcome, F: history.FCommit, Txn: w.txnSeq, Records: recs(batch), DurNS: since(commitStart),
		TxnNS: since(txnStart)}
	if err != nil {
		e.Error = err.Error()
	}
	w.event(e)
	w.last.Outcome, w.last.Commit, w.last.Total = outcome, time.Duration(e.DurNS), time.Since(txnStart)

	switch outcome {
	case history.OK:
		if w.armedAt(PointAfterCommit) {
			w.fire(ctx, PointAfterCommit, batch)
		}
		if w.cfg.Mode != Implicit {
			acked := batch
			if mutated(MutantForgetAck) && w.cfg.Mode == Explicit && deliveryCount(batch[0]) == 1 {
				acked = batch[1:]
			}
			w.last.Ack = w.ack(ctx, kgo.AckAccept, acked)
		}
		return nil
	default:
		// Failed or unknown: never ACCEPT after an unknown outcome; RELEASE
		// and let the next holder decide (ORACLE.md "Outcomes of operations").
		// Implicit mode cannot: its next poll accepts the batch whatever happened.
		if w.cfg.Mode != Implicit {
			w.ack(ctx, kgo.AckRelease, batch)
		}
		if Fenced(err) {
			// Another process owns our transactional id now (we were a
			// zombie): a fenced producer is dead, and so is this worker.
			return fmt.Errorf("commit txn %d: fenced: %w", w.txnSeq, err)
		}
		if w.resumed && outcome == history.Fail {
			// A zombie whose commit is refused must not re-register its
			// transactional id (that would fence the replacement in turn).
			// kfake answers INVALID_TXN_STATE, not PRODUCER_FENCED, when the
			// replacement's InitProducerId bumped the epoch by exactly one
			// (its KIP-890 retry detection takes the zombie's EndTxn for a
			// retry of a finished transaction; FINDINGS.md).
			return fmt.Errorf("commit txn %d after being resumed: refused: %w", w.txnSeq, err)
		}
		return w.replaceProducer(ctx)
	}
}

// abortIfStopping aborts the open transaction and gives the batch back when
// a graceful stop (SIGTERM cancels ctx) came during it, and reports whether
// it did. It is checked after the send and before the commit: a stop that
// let the transaction commit would be no stop at all (the commit itself is
// never cancelled, see transact), and one that went on to the acks would
// fail them on the cancelled context and record a failure that is no
// failure. The Java worker checks its stopping flag at the same places.
func (w *Worker) abortIfStopping(ctx context.Context, batch []*kgo.Record) (bool, error) {
	if ctx.Err() == nil {
		return false, nil
	}
	return true, w.abort(ctx, batch, "worker stopping (SIGTERM)")
}

// abort aborts the open transaction and releases the batch (implicit mode
// leaves it to the next poll, which accepts it: the loss ORACLE.md allows).
func (w *Worker) abort(ctx context.Context, batch []*kgo.Record, why string) error {
	if err := w.abortOnly(ctx, why); err != nil {
		if w.cfg.Mode != Implicit {
			w.ack(ctx, kgo.AckRelease, batch)
		}
		return err
	}
	if w.cfg.Mode != Implicit {
		w.ack(ctx, kgo.AckRelease, batch)
	}
	return nil
}

func (w *Worker) abortOnly(ctx context.Context, why string) error {
	w.event(history.Event{Type: history.Invoke, F: history.FAbort, Txn: w.txnSeq, Error: why})
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.RequestTimeout.D())
	defer cancel()
	start := time.Now()
	if err := w.producer.AbortBufferedRecords(actx); err != nil {
		w.event(history.Event{Type: history.Info, F: history.FAbort, Txn: w.txnSeq, Error: err.Error()})
		return w.replaceProducer(ctx)
	}
	if err := w.producer.EndTransaction(actx, kgo.TryAbort); err != nil {
		// Unknown: the producer is replaced, whose InitProducerId aborts
		// whatever is still open.
		w.event(history.Event{Type: history.Info, F: history.FAbort, Txn: w.txnSeq, Error: err.Error(), DurNS: since(start)})
		if Fenced(err) {
			// A zombie must not re-register the transactional id its
			// replacement now owns: a new InitProducerId would fence the
			// replacement in turn. A fenced worker is dead.
			return fmt.Errorf("abort txn %d: fenced: %w", w.txnSeq, err)
		}
		return w.replaceProducer(ctx)
	}
	w.event(history.Event{Type: history.OK, F: history.FAbort, Txn: w.txnSeq, DurNS: since(start)})
	return nil
}

// ack marks records with status and flushes the acks synchronously, so the
// ack event records a completed round trip (share_ack_duration).
//
// The native realization sends no non-transactional ack at all, not even a
// RELEASE: the transaction is the one place its acks go, and the broker the
// one that settles them (after an abort or an unknown outcome the records
// come back when their locks end). A RELEASE here would also hide a broker
// that failed to return them.
func (w *Worker) ack(ctx context.Context, status kgo.AckStatus, batch []*kgo.Record) time.Duration {
	if w.leavesAcksToTxn() {
		return 0
	}
	return w.ackOutsideTxn(ctx, status, batch)
}

// ackOutsideTxn sends a plain (non-transactional) ack, whatever the
// realization: ack's body, and the mutant acks-outside-txn's way around the
// native realization's rule.
func (w *Worker) ackOutsideTxn(ctx context.Context, status kgo.AckStatus, batch []*kgo.Record) time.Duration {
	if len(batch) == 0 {
		return 0
	}
	name := map[kgo.AckStatus]string{kgo.AckAccept: history.AckAccept, kgo.AckRelease: history.AckRelease,
		kgo.AckReject: history.AckReject, kgo.AckRenew: history.AckRenew}[status]
	w.event(history.Event{Type: history.Invoke, F: history.FAck, Ack: name, Records: recs(batch)})
	start := time.Now()
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.RequestTimeout.D())
	defer cancel()
	rejected, err := w.src.Ack(fctx, status, batch)
	d := time.Since(start)
	if err != nil {
		w.event(history.Event{Type: history.Info, F: history.FAck, Ack: name, Records: recs(batch), Error: err.Error(), DurNS: d.Nanoseconds()})
		return d
	}
	if len(rejected) > 0 {
		// The broker refused (or never got) some of these acks: the records
		// stay acquired until released or their locks expire.
		w.event(history.Event{Type: history.Fail, F: history.FAck, Ack: name, Records: recs(batch),
			Error: strings.Join(rejected, "; "), DurNS: d.Nanoseconds()})
		return d
	}
	w.event(history.Event{Type: history.OK, F: history.FAck, Ack: name, Records: recs(batch), DurNS: d.Nanoseconds()})
	return d
}

// leavesAcksToTxn: a realization whose acks go into the transaction only
// (TxnAcker.LeavesAcksToTxn).
func (w *Worker) leavesAcksToTxn() bool {
	return w.acker != nil && w.acker.LeavesAcksToTxn()
}

func without(batch, drop []*kgo.Record) []*kgo.Record {
	skip := make(map[*kgo.Record]bool, len(drop))
	for _, r := range drop {
		skip[r] = true
	}
	var out []*kgo.Record
	for _, r := range batch {
		if !skip[r] {
			out = append(out, r)
		}
	}
	return out
}
