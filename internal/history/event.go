// Package history is the only contract between running and checking: every
// worker appends what it did as events (Jepsen's invoke, then ok / fail / info),
// and the checker reads nothing else about the workers.
package history

// Type is an event's outcome kind.
type Type string

const (
	// Invoke: an operation is about to start.
	Invoke Type = "invoke"
	// OK: the operation happened.
	OK Type = "ok"
	// Fail: the operation certainly did not happen.
	Fail Type = "fail"
	// Info: the outcome is unknown (a commit whose response was lost may have
	// happened). Checkers must accept both possibilities.
	Info Type = "info"
)

// Operation names (the event's "f").
const (
	FPoll           = "poll"            // ok carries the polled records
	FBegin          = "begin"           // beginTransaction
	FSend           = "send"            // ok carries the ids whose outputs were produced
	FFlush          = "flush"           // producer flush; fail when any produce failed
	FLedger         = "ledger"          // ledger entries written / read (transactional, ledger realization)
	FValidate       = "validate"        // ledger validation before commit
	FTxnAcks        = "txn-acks"        // acks added to the transaction (transactional mode)
	FRenew          = "renew"           // lock renewal
	FCommit         = "commit"          // commitTransaction; ok/fail/info
	FAbort          = "abort"           // abortTransaction
	FAck            = "ack"             // non-transactional ack (ACCEPT / RELEASE)
	FFaultFired     = "fault-fired"     // a fault fired at its point
	FHeal           = "heal"            // a cluster fault was undone (orchestrator timeline)
	FFaultPrepare   = "fault-prepare"   // what a cluster fault set up before it acted (leaders moved)
	FFaultError     = "fault-error"     // a worker fault could not do all it meant to (the cut failed)
	FResumed        = "resumed"         // a stopped (zombie) worker runs again
	FArm            = "arm"             // the orchestrator armed a worker slot (orchestrator timeline)
	FZombieStopped  = "zombie-stopped"  // the armed worker is frozen (orchestrator timeline)
	FZombieReplaced = "zombie-replaced" // its replacement was started
	FZombieResumed  = "zombie-resumed"  // SIGCONT sent to the zombie
	FInitProducer   = "init-producer"   // the producer's InitProducerId done (ok): its transactional id is ours, predecessors fenced
	FStart          = "start"           // a worker process started (info)
	FStop           = "stop"            // a worker process stopped cleanly (info)
	FSeed           = "seed"            // input records written by the seeder
	FRelease        = "release"         // a broker's release proven after a roll: the version it logged, what its ApiVersions supports (orchestrator timeline)
	FFeatures       = "features"        // feature levels finalized after a roll: before, supported by all, after (orchestrator timeline)
	FDeadLetters    = "dead-letters"    // what the cell's dead-letter topic held after the drain (orchestrator timeline)
	FNudge          = "nudge"           // one more input record on a partition whose share start offset stopped moving (orchestrator timeline)
	FShareOffsets   = "share-offsets"   // one input partition's share start offset, lag and end offset as DescribeShareGroupOffsets reported them to a fault (orchestrator timeline)
)

// AttrTxnTimeout, in a start event's attrs, is the worker's transaction
// timeout (a time.Duration string): the coordinator aborts a transaction
// still open that long after it began.
const AttrTxnTimeout = "txn_timeout"

// AttrMemberTags, in a native worker's start event's attrs, is send or omit:
// whether its TxnShareAcknowledge carried the proposed member id and epoch
// tagged fields (docs/FINDINGS.md 2).
const AttrMemberTags = "member_tags"

// Ack types as they appear in events.
const (
	AckAccept  = "accept"
	AckRelease = "release"
	AckReject  = "reject"
	AckRenew   = "renew"
)

// Rec is one input record as a worker saw it.
type Rec struct {
	ID        string `json:"id"`
	Partition int32  `json:"p"`
	Offset    int64  `json:"o"`
	// Delivery is the broker's delivery count for this acquisition (1 = first).
	Delivery int32 `json:"dc,omitempty"`
}

// Event is one line of a history file.
type Event struct {
	// TS is the wall clock in nanoseconds since the Unix epoch.
	TS int64 `json:"ts"`
	// Worker is slot.incarnation, e.g. "w2.1"; Orchestrator or "seeder" for others.
	Worker string `json:"worker"`
	Type   Type   `json:"type"`
	F      string `json:"f"`
	// Txn is the worker's transaction sequence number (1, 2, ...), 0 when none.
	Txn int64 `json:"txn,omitempty"`
	// Records the event touched (poll results, a transaction's batch, acks).
	Records []Rec `json:"records,omitempty"`
	// IDs the event touched when offsets do not matter (outputs sent).
	IDs []string `json:"ids,omitempty"`
	// Ack is the ack type of an ack event.
	Ack string `json:"ack,omitempty"`
	// Error is the error text of a fail or info event.
	Error string `json:"error,omitempty"`
	// DurNS is how long the operation took (set on its completion event).
	DurNS int64 `json:"dur_ns,omitempty"`
	// TxnNS is, on a commit's completion, how long its whole transaction
	// took: beginTransaction to the commit's return.
	TxnNS int64 `json:"txn_ns,omitempty"`
	// Fault names the fault of a fault-fired event, Point where it fired.
	Fault string `json:"fault,omitempty"`
	Point string `json:"point,omitempty"`
	// Realization is "ledger" or "native" on a transactional worker's start event.
	Realization string `json:"realization,omitempty"`
	// Attrs carries anything else (producer id and epoch, member id, ...).
	Attrs map[string]string `json:"attrs,omitempty"`
}

// Orchestrator is the Worker of the orchestrator's own events (the cluster
// faults' firings and heals, the seeding).
const Orchestrator = "orchestrator"
