package scenarios

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/history"
)

// Under the reference broker's `hold` a pending ack keeps its records from
// every other member until the transaction ends, so the race the
// lock-expiry rows look for (a second acquisition while the first
// transaction is open) cannot happen there, and its evidence could never be
// shown. What a hold cell must show instead is the moment the policy exists
// for: the lock ran out while the acks were pending, and nobody else got
// the records before the transaction ended.

// pendingPastLock: the armed transaction's acks were pending (txn-acks ok)
// before its records' lock ran out, and the transaction ended (commit or
// abort answered) only after. The lock runs from the broker's acquisition,
// which came before the worker's poll ok, so it ran out no later than poll
// plus lock: the bound this evidence uses is on the safe side.
var pendingPastLock = Evidence{Name: "the lock ran out while the acks were pending",
	Missing: "the hold was not tested: the armed transaction's acks were not pending when its records' lock ran out " +
		"(no txn-acks ok, a transaction that ended within the lock of its poll, or a lock this check does not know)",
	Find: func(h history.History, c Conditions) (bool, string) {
		a, ok := findArmed(h)
		if !ok || c.Lock <= 0 || a.polled == 0 {
			return false, ""
		}
		acks, end, how := a.txnSpan(h)
		ranOut := a.polled + c.Lock.Nanoseconds()
		if acks == 0 || end == 0 || acks >= ranOut || end <= ranOut {
			return false, ""
		}
		return true, fmt.Sprintf("%s polled its batch at %s, its acks pending from %s; the lock (%s) ran out by %s; its transaction ended (%s) at %s",
			a.fired.Worker, a.at(a.polled), a.at(acks), c.Lock, a.at(ranOut), how, a.at(end))
	}}

// heldFromOthers: no other worker acquired a record of the armed batch after
// the firing and before the armed transaction ended.
var heldFromOthers = Evidence{Name: "nobody else acquired the records before the transaction ended",
	Missing: "another worker acquired the armed worker's records before its transaction ended: the broker did not hold them",
	Find: func(h history.History, _ Conditions) (bool, string) {
		a, ok := findArmed(h)
		if !ok {
			return false, ""
		}
		_, end, _ := a.txnSpan(h)
		if end == 0 {
			return false, ""
		}
		for range a.acquiredByOthers(h, end) {
			return false, ""
		}
		return true, fmt.Sprintf("no other worker polled a record of %s's batch between the firing at %s and %s",
			a.fired.Worker, a.at(a.fired.TS), a.at(end))
	}}

// txnSpan is the armed transaction (the one the fault-fired event names) as
// its worker saw it: its first txn-acks ok, and when and how it ended (the
// commit's or abort's answer after the firing); 0 for what is not there.
func (a armed) txnSpan(h history.History) (acks, end int64, how string) {
	txn := a.fired.Txn
	for i, e := range h {
		if e.Worker != a.fired.Worker || e.Txn != txn || txn == 0 {
			continue
		}
		if e.F == history.FTxnAcks && e.Type == history.OK && acks == 0 {
			acks = e.TS
		}
		if i > a.idx && (e.F == history.FCommit || e.F == history.FAbort) && e.Type != history.Invoke {
			return acks, e.TS, fmt.Sprintf("%s %s", e.F, e.Type)
		}
	}
	return acks, 0, ""
}
