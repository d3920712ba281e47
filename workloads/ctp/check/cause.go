package check

// Causes name the mechanism behind one instance of an anomaly, as the history
// shows it (verdict.Found.Causes, verdict.Example.Cause). Whether an anomaly
// counts under its allowable name depends on its cause: a duplicate is
// "duplicate" only with a redelivery cause, a loss "lost" only with an
// abort-then-accept (or archiving) cause; without one it gets a name no cell
// allows.
const (
	// Duplicates, redelivered: why the first delivery's ack did not take.

	// CauseCrashAfterCommit: after the first commit, and before the
	// record's ack left, the worker was killed: its own fault killed it
	// (fault-fired, action kill), or its history ends there with no stop
	// event. Explicit: before its ACCEPT; implicit: before the fetch its ack
	// rides on (ack_fate.go).
	CauseCrashAfterCommit = "crash after commit"
	// CauseFencedZombie: after the first commit, and before the record's
	// ack left, its own fault froze the worker (a zombie), or a worker with
	// its transactional id started while it still ran.
	CauseFencedZombie = "fenced zombie"
	// CauseReleased: the first acquisition ended early, with nothing of the
	// worker's own to say why (no stall of its own): a RELEASE, a leader
	// move, a dropped connection or a clean stop returned the record, and it
	// came back with a higher delivery count (or to another worker).
	CauseReleased = "released (leader move or dropped connection)"
	// CauseLockExpired: the first acquisition ended while its worker's own
	// fault stalled it holding the record, connection up (the lock-expiry
	// rows): its lock ran out and the record was acquired again.
	CauseLockExpired = "lock expired"
	// CauseAckLostWithBroker: the first worker's ACCEPT was answered ok, and
	// a cluster fault (a broker killed, isolated or restarted) struck before
	// the record came back: the broker lost the acknowledgement with its
	// in-flight share-partition state.
	CauseAckLostWithBroker = "ack lost with a broker fault"
	// CauseLeaderLostState: a cluster fault struck between two deliveries
	// whose counts do not rise: the new leader of the input partition knew
	// only the persisted state, not the acquisition in flight.
	CauseLeaderLostState = "redelivered by a new leader after a broker fault"
	// CauseAckFailed: the ack after the commit failed.
	CauseAckFailed = "ack failed"
	// CauseAckUnknown: the ack after the commit has an unknown outcome.
	CauseAckUnknown = "ack outcome unknown"
	// CauseCommitUnknown: the first commit's outcome is unknown (info): the
	// worker RELEASEs, and the next holder processes the record again.
	CauseCommitUnknown = "commit outcome unknown"
	// CauseFirstNotCommitted: the first output's transaction was aborted or
	// never committed, yet it is visible (an aborted read, reported apart).
	CauseFirstNotCommitted = "first transaction not committed (aborted read)"

	// Duplicates that redelivery cannot explain.

	// CauseOneTransaction: one transaction wrote two outputs of the record.
	CauseOneTransaction = "one transaction wrote it twice"
	// CauseOneDelivery: one poll's record was committed in two transactions.
	CauseOneDelivery = "one delivery committed in two transactions"
	// CauseAcceptedYetRedelivered: the first worker ACCEPTed it ok after its
	// commit (native: its ack committed with the transaction), and it was
	// processed again with no cluster fault between.
	CauseAcceptedYetRedelivered = "ACCEPTed ok, yet processed again"
	// CauseNoLaterDelivery: the second output's delivery count is not higher
	// and nothing else in the history explains a second delivery.
	CauseNoLaterDelivery = "no later delivery in the history"
	// CauseNoHistory: no history event names the first output's transaction.
	CauseNoHistory = "no history of the first transaction"
	// CauseNeverAcked: the first transaction committed, its worker went on
	// with its loop (no crash, freeze, fence or stop before it could ack),
	// and it never acknowledged the record: explicit and ledger, no ack
	// invoked after the commit; implicit, no poll after it (the next poll
	// is its ack); native, no ack inside the committed transaction (it never
	// acks after). Nothing released the record: the loop forgot it
	// (verdict.AnomalyDuplicateNeverAcked).
	CauseNeverAcked = "committed, never acknowledged"

	// Losses.

	// CauseAcceptedByNextPoll: implicit; the record's transaction aborted or
	// was left unfinished and its worker went on, so its next poll accepted
	// the batch (ORACLE.md cases 5 to 7).
	CauseAcceptedByNextPoll = "accepted by the next poll after an abort"
	// CauseAcceptedAfterAbort: the worker ACCEPTed the record after its
	// transaction aborted or was left unfinished.
	CauseAcceptedAfterAbort = "ACCEPTed after an abort"
	// CauseArchived: the broker archived it (delivery limit or reject);
	// reported as archived too.
	CauseArchived = "archived"
	// CauseTxnCommitted: a transaction holding the record committed, yet its
	// output is not visible.
	CauseTxnCommitted = "its transaction committed"
	// CauseNoAbortThenAccept: no aborted or unfinished transaction of the
	// record followed by an accept: nothing in the history explains the loss.
	CauseNoAbortThenAccept = "no abort followed by an accept"
)
