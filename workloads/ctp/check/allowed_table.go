package check

// This file is ORACLE.md's tables as data: what each (scenario, mode) cell
// tolerates. It lives here only until the scenarios catalog takes it (it
// cannot stay in ctp, which check imports); it is kept a plain table so that
// the move is a cut and paste.

import (
	"fmt"
	"strings"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// AllowedFor returns what the cell (mode, scenario) tolerates. A scenario
// variant "base/variant" (e.g. "crash-after-send/fresh-id") inherits the row
// of its base when it has none of its own. An unknown scenario or mode is an
// error rather than "nothing allowed": a cell judged against the wrong row
// would report expected duplicates as anomalies, or hide real ones.
func AllowedFor(mode ctp.AckMode, scenario string) (Allowed, error) {
	row, ok := allowedRowFor(scenario)
	if !ok {
		return Allowed{}, fmt.Errorf("look up allowed anomalies: unknown scenario %q (known: %s)",
			scenario, strings.Join(AllowedScenarios(), ", "))
	}
	switch mode {
	case ctp.Transactional:
		return row.transactional.clone(), nil
	case ctp.Explicit:
		return row.explicit.clone(), nil
	case ctp.Implicit:
		return row.implicit.clone(), nil
	}
	return Allowed{}, fmt.Errorf("look up allowed anomalies: unknown mode %q", mode)
}

// AllowedScenarios lists the scenarios AllowedFor knows, in table order.
func AllowedScenarios() []string {
	names := make([]string, len(allowedRows))
	for i, r := range allowedRows {
		names[i] = r.scenario
	}
	return names
}

func allowedRowFor(scenario string) (allowedRow, bool) {
	for _, r := range allowedRows {
		if r.scenario == scenario {
			return r, true
		}
	}
	if base, _, ok := strings.Cut(scenario, "/"); ok {
		return allowedRowFor(base)
	}
	return allowedRow{}, false
}

// allowedRow is one row of ORACLE.md's tables: the scenario and, per mode in
// ORACLE.md's column order, what that mode tolerates.
type allowedRow struct {
	scenario                          string
	transactional, explicit, implicit Allowed
}

// The building blocks of the table. Lost always comes with ack-without-output,
// which is how loss shows (ORACLE.md "Anomalies the checker names"). Archived
// is never allowed: chaos runs make faults one-shot per record and set the
// delivery limit to 10, so a correct system never archives (ORACLE.md "How
// records come back"), even in a mode that may lose records otherwise.
var (
	allowNothing = Allowed{}

	allowDuplicates = Allowed{Anomalies: map[string]string{
		verdict.AnomalyDuplicate: "at-least-once: the ack after the commit can be lost",
	}}

	allowLossAfterAbort = Allowed{Anomalies: map[string]string{
		verdict.AnomalyLost:             "implicit: the next poll accepts an aborted batch",
		verdict.AnomalyAckWithoutOutput: "implicit: the next poll accepts an aborted batch",
	}}

	allowDuplicatesAndLossAfterAbort = Allowed{Anomalies: map[string]string{
		verdict.AnomalyDuplicate:        "at-least-once: the ack after the commit can be lost",
		verdict.AnomalyLost:             "implicit: the next poll accepts an aborted batch",
		verdict.AnomalyAckWithoutOutput: "implicit: the next poll accepts an aborted batch",
	}}

	// Found by running it, against ORACLE.md's "same" for cases 1 and 2: an
	// implicit worker's acks of its previous, committed batch ride on its next
	// ShareFetch, which a worker killed before that fetch never sends. The
	// broker releases the batch with the dead connection and it is processed
	// again. Explicit mode flushes its acks synchronously before the next poll,
	// so it has no such window.
	allowImplicitCrashDuplicates = Allowed{Anomalies: map[string]string{
		verdict.AnomalyDuplicate: "implicit: the previous batch's acks ride on the next fetch, which a crashed worker never sends",
	}}

	notApplicableAfterAcks = Allowed{NotApplicable: "crash-after-acks needs acks inside the " +
		"transaction: only the transactional mode has that point (ORACLE.md case 3: n/a)"}
)

// allowedRows is ORACLE.md as data. Each row quotes the page; a new scenario
// is a new row. "transactional" holds for both realizations (ledger and
// native): ORACLE.md "must hold in both realizations unless a cell says
// otherwise", and no row says otherwise.
var allowedRows = []allowedRow{
	// Not in ORACLE.md's tables: no fault at all, so every mode must show
	// nothing (implicit loses only after an abort, and nothing aborts).
	{"steady", allowNothing, allowNothing, allowNothing},

	// Case 1: "no output; records released at once and reprocessed; no loss,
	// no dup" in every mode ("same").
	// Implicit: duplicates, see allowImplicitCrashDuplicates (ORACLE.md corrected).
	{"crash-before-begin", allowNothing, allowNothing, allowImplicitCrashDuplicates},

	// Case 2: "txn aborted ...; output never visible (no aborted read);
	// reprocessed; no loss, no dup" in every mode ("same").
	{"crash-after-send", allowNothing, allowNothing, allowImplicitCrashDuplicates},
	// Case 2, "a variant with a fresh id exercises the path where only the
	// transaction timeout ends the old transaction": the same guarantees.
	{"crash-after-send-fresh-id", allowNothing, allowNothing, allowImplicitCrashDuplicates},

	// Case 3: "pending acks discarded with the abort; reprocessed; no loss,
	// no dup"; explicit and implicit: "n/a" (no acks in their transactions).
	{"crash-after-acks", allowNothing, notApplicableAfterAcks, notApplicableAfterAcks},

	// Case 4: transactional "exactly once"; explicit "dup only if the ack was
	// lost with the crash"; implicit "like explicit".
	// Implicit also loses after an abort: a worker whose own transaction
	// times out during the coordinator's failover aborts, and its next poll
	// accepts the batch (seen on Kafka 4.2.2; ORACLE.md's "like explicit"
	// holds only for the worker whose commit was held).
	{"coordinator-crash-after-endtxn", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},

	// Case 4b: transactional "no dup (the acks were in the txn)"; explicit
	// "duplicates expected: the window KIP-1289 closes; counted, allowed";
	// implicit "duplicates, like explicit".
	{"crash-after-commit", allowNothing, allowDuplicates, allowDuplicates},

	// Case 5: transactional "no loss, no dup"; explicit "no loss; dup
	// allowed"; implicit "loss possible if A's next poll accepts the aborted
	// batch" (and A's committed batches can come back: dup, as explicit).
	{"zombie-fenced", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},

	// Case 6: transactional "no loss, no dup"; explicit "records RELEASEd and
	// reprocessed; no loss"; implicit "the next poll accepts the aborted
	// batch: loss expected, counted, allowed".
	{"explicit-abort", allowNothing, allowNothing, allowLossAfterAbort},

	// Case 7: transactional "no loss, no dup"; explicit "no loss"; implicit
	// "loss expected, as in 6".
	{"partial-produce-failure", allowNothing, allowNothing, allowLossAfterAbort},

	// "Beyond the KIP's list": these release acquisitions early, so
	// transactional must stay exactly-once while explicit and implicit show
	// at-least-once duplicates. Implicit: "loss only after an abort"; the
	// checker counts a loss as "lost" only when the history shows the abort
	// and the accept after it (lost-after-commit and lost-unexplained are
	// allowed nowhere), so these rows can allow "lost" for implicit.

	// Transactional "no dup, no loss" (native: a redelivery while the acks are
	// pending is the ANOMALY redelivered-while-pending, never allowed);
	// explicit "dup allowed"; implicit "dup allowed; loss if the stalled
	// worker's next poll accepts an aborted batch".
	{"lock-expiry-during-txn", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},
	// "no loss, no dup" / "no loss; dup allowed" / "dup allowed; loss only after an abort".
	{"broker-kill", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},
	// "no loss, no dup" / "no loss; dup allowed" / "as broker-kill".
	{"share-state-leader-kill", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},
	// "no loss, no dup" / "no loss; dup allowed" / "as broker-kill".
	{"data-leader-kill", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},
	// "no loss, no dup" / "no loss; dup allowed" / "as broker-kill".
	{"partition", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},
	// "no loss, no dup; latency reported" / "no loss; dup allowed" / "as broker-kill".
	{"slow-network", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},
	// "no loss, no dup" / "no loss; dup allowed" / "as broker-kill".
	{"rolling-restart", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},
	// "rejected by epoch (KIP-890 style); no aborted read, no dup" in every
	// mode ("same").
	{"late-endtxn", allowNothing, allowNothing, allowNothing},
	// "no loss, no dup" / "no loss; dup allowed" / "dup; loss only after aborts".
	{"random-schedule", allowNothing, allowDuplicates, allowDuplicatesAndLossAfterAbort},
}
