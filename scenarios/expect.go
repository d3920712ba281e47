package scenarios

import (
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// The building blocks of the rows' expectations, each in ORACLE.md's words.
// Lost always comes with ack-without-output, which is how loss shows
// (ORACLE.md "Anomalies the checker names"). Archived is never allowed: chaos
// runs make faults one-shot per record and set the delivery limit to 10, so a
// correct system never archives (ORACLE.md "How records come back"), even in
// a mode that may lose records otherwise. Unseen is never allowed either: it
// is liveness and makes a cell UNKNOWN, never PASS.

const (
	whyAtLeastOnce  = "at-least-once: the ack after the commit can be lost"
	whyLossAbort    = "implicit: the next poll accepts an aborted batch"
	whyImplicitRide = "implicit: the previous batch's acks ride on the next fetch, which a crashed worker never sends"
	whyAfterCommit  = "duplicates expected: the window KIP-1289 closes (the ack after the commit is lost with the crash)"
)

// nothing: the mode must show no anomaly at all.
var nothing = Expectation{}

func allow(pairs ...string) Expectation {
	e := Expectation{Allowed: map[string]string{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		e.Allowed[pairs[i]] = pairs[i+1]
	}
	return e
}

var (
	duplicates = allow(verdict.AnomalyDuplicate, whyAtLeastOnce)

	lossAfterAbort = allow(verdict.AnomalyLost, whyLossAbort, verdict.AnomalyAckWithoutOutput, whyLossAbort)

	duplicatesAndLossAfterAbort = allow(verdict.AnomalyDuplicate, whyAtLeastOnce,
		verdict.AnomalyLost, whyLossAbort, verdict.AnomalyAckWithoutOutput, whyLossAbort)

	// Found by running it, against ORACLE.md's "same" for cases 1 and 2: an
	// implicit worker's acks of its previous, committed batch ride on its
	// next ShareFetch, which a worker killed before that fetch never sends.
	// The broker releases the batch with the dead connection and it is
	// processed again. Explicit mode flushes its acks synchronously before
	// the next poll, so it has no such window.
	implicitCrashDuplicates = allow(verdict.AnomalyDuplicate, whyImplicitRide)

	// poisonIntoDLQ: the poison records have no output by design; the
	// dead-letters part (lost-not-poison, dlq-*) holds the allowance to
	// exactly those records, each archived and dead-lettered once.
	poisonIntoDLQ = allow(verdict.AnomalyLost, whyPoison, verdict.AnomalyAckWithoutOutput, whyPoison, verdict.AnomalyArchived, whyPoison)
)

const whyPoison = "poison records: no worker can process them, the broker archives them at the delivery-count limit and writes them to the dead-letter topic (the dead-letters part checks each is there once and that nothing else was lost)"

// noTxnAcksFor: a row about acks inside the transaction (case 3, the
// stale-epoch zombie) only exists in the mode that puts them there.
func noTxnAcksFor(row string) Expectation {
	return Expectation{NotApplicable: row + " needs acks inside the transaction: " +
		"only the transactional mode has that point (ORACLE.md case 3: n/a)"}
}

// unconfirmedAcks: implicit mode's acks ride on its next fetch, which
// answers no ack of its own, so no acknowledgement is ever confirmed to the
// worker, and a row about a confirmed one being lost has nothing to show.
func unconfirmedAcks(row string) Expectation {
	return Expectation{NotApplicable: row + " shows acknowledgements the broker confirmed and then lost: " +
		"implicit mode's acks ride on the next fetch, which confirms none of them"}
}

// exactlyOnceElse is the shape most rows have: transactional tolerates nothing
// (in both realizations, ORACLE.md: "must hold in both realizations unless a
// cell says otherwise", and no row says otherwise), explicit and implicit
// what they are given.
func exactlyOnceElse(explicit, implicit Expectation) map[ctp.AckMode]Expectation {
	return map[ctp.AckMode]Expectation{ctp.Transactional: nothing, ctp.Explicit: explicit, ctp.Implicit: implicit}
}
