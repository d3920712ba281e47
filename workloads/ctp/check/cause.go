package check

// Causes name the mechanism behind one instance of an anomaly, as the history
// shows it (verdict.Found.Causes, verdict.Example.Cause). Whether an anomaly
// counts under its allowable name depends on its cause: a duplicate is
// "duplicate" only with a redelivery cause, a loss "lost" only with an
// abort-then-accept (or archiving) cause; without one it gets a name no cell
// allows.
const (
	// Duplicates, redelivered: why the first delivery's ack did not take.

	// CauseCrashAfterCommit: the first worker's history ends after its commit
	// ok with no ack ok for the record, and no stop event: it was killed
	// before its ack (explicit), or before the fetch its ack rides on
	// (implicit).
	CauseCrashAfterCommit = "crash after commit"
	// CauseFencedZombie: after the first commit the worker was stopped (a
	// zombie) or superseded by a worker with its transactional id, before an
	// ack ok.
	CauseFencedZombie = "fenced zombie"
	// CauseReleased: the worker lived on, no ack ok, and the record came back
	// with a higher delivery count (or to another worker): its acquisition
	// was released by a leader move or a dropped connection, or expired.
	CauseReleased = "released (leader move or dropped connection)"
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
	// commit, and it was processed again.
	CauseAcceptedYetRedelivered = "ACCEPTed ok, yet processed again"
	// CauseNoLaterDelivery: the second output's delivery count is not higher
	// and nothing else in the history explains a second delivery.
	CauseNoLaterDelivery = "no later delivery in the history"
	// CauseNoHistory: no history event names the first output's transaction.
	CauseNoHistory = "no history of the first transaction"

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
