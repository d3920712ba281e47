package ctp

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/history"
)

// Renew is the loop's RENEW option (KIP-1222): a worker that holds a batch
// longer than its processing takes (a stall: a slow step, a long
// transaction) renews the batch's acquisition locks every Every, so the
// broker keeps the records its own instead of giving them to another
// member when the lock ends. Lock is the group's acquisition lock: each
// renewal the broker confirms holds the records until at least the renew's
// start plus Lock, which its event says (AttrLockUntil) for the checker.
type Renew struct {
	Every Duration `json:"every"`
	Lock  Duration `json:"lock"`
}

// AttrLockUntil is a renew ok event's attribute: the time (ns) until which
// the broker holds the renewed records for the worker, at the least.
const AttrLockUntil = "lock_until"

// stall holds the batch for Arm.Stall, connections up; a worker that
// renews sends RENEW for the batch every Renew.Every meanwhile. A renewal
// the broker refuses (a group with share.renew.acknowledge.enable=false
// answers INVALID_RECORD_STATE) is recorded and the stall goes on: the
// row's evidence and the checker read what happened.
func (w *Worker) stall(ctx context.Context, batch []*kgo.Record) {
	end := time.After(w.cfg.Arm.Stall.D())
	var tick <-chan time.Time
	if r := w.cfg.Renew; r != nil && r.Every > 0 && len(batch) > 0 {
		t := time.NewTicker(r.Every.D())
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-end:
			return
		case <-ctx.Done():
			return
		case <-tick:
			w.renew(ctx, batch)
		}
	}
}

// renew sends one RENEW for batch and records the answer: ok with the
// time the records are held until, fail with the partitions the broker
// refused, info when the outcome is unknown.
func (w *Worker) renew(ctx context.Context, batch []*kgo.Record) {
	w.event(history.Event{Type: history.Invoke, F: history.FRenew, Txn: w.txnSeq, Records: recs(batch)})
	start := time.Now()
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.RequestTimeout.D())
	defer cancel()
	rejected, err := w.src.Ack(fctx, kgo.AckRenew, batch)
	d := time.Since(start)
	switch {
	case err != nil:
		w.event(history.Event{Type: history.Info, F: history.FRenew, Txn: w.txnSeq, Records: recs(batch), Error: err.Error(), DurNS: d.Nanoseconds()})
	case len(rejected) > 0:
		w.event(history.Event{Type: history.Fail, F: history.FRenew, Txn: w.txnSeq, Records: recs(batch),
			Error: strings.Join(rejected, "; "), DurNS: d.Nanoseconds()})
	default:
		until := start.Add(w.cfg.Renew.Lock.D()).UnixNano()
		w.event(history.Event{Type: history.OK, F: history.FRenew, Txn: w.txnSeq, Records: recs(batch), DurNS: d.Nanoseconds(),
			Attrs: map[string]string{AttrLockUntil: strconv.FormatInt(until, 10)}})
	}
}
