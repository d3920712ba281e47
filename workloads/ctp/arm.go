package ctp

import "slices"

// Point is a step of the CTP loop where a client-side fault can act. The points
// are the corner cases of KIP-1289 section 6 (ORACLE.md), in loop order.
type Point string

const (
	// PointBeforeBegin: after a non-empty poll, before beginTransaction (case 1).
	PointBeforeBegin Point = "before-begin"
	// PointBeforeSend: the transaction begun, nothing produced yet: where
	// partial-produce-failure cuts the worker's link to one output leader (case 7).
	PointBeforeSend Point = "before-send"
	// PointAfterSend: outputs produced and flushed, before acks and commit (case 2).
	PointAfterSend Point = "after-send"
	// PointAfterAcks: acks inside the transaction, before commit (case 3;
	// transactional mode only).
	PointAfterAcks Point = "after-acks"
	// PointBeforeCommit: everything of the transaction done (and validated),
	// commitTransaction not yet called: where explicit-abort aborts (case 6) and
	// lock-expiry-during-txn holds the transaction open.
	PointBeforeCommit Point = "before-commit"
	// PointAfterCommit: commitTransaction returned OK, before any
	// non-transactional ack (case 4b).
	PointAfterCommit Point = "after-commit"
)

// Points lists every point in the loop's order.
var Points = []Point{PointBeforeBegin, PointBeforeSend, PointAfterSend, PointAfterAcks, PointBeforeCommit, PointAfterCommit}

// Action is what an armed worker does at its point.
type Action string

const (
	// ActionKill: write fault-fired, then SIGKILL the worker's own process.
	ActionKill Action = "kill"
	// ActionAbort: write fault-fired, then abort the transaction instead of
	// committing it (case 6: a validation failure on one batch).
	ActionAbort Action = "abort"
	// ActionTerm: write fault-fired, then SIGTERM the worker's own process: a
	// rolling deploy's graceful stop arriving mid-transaction. The worker's
	// own stop path (its signal handler) must then abort the open
	// transaction, give the batch back and exit; the orchestrator replaces
	// it as it replaces a killed one.
	ActionTerm Action = "term"
	// ActionStop: write fault-fired, then SIGSTOP the worker's own process: a
	// zombie whose connections stay up (case 5). The orchestrator starts its
	// replacement with the same transactional id and later resumes it.
	ActionStop Action = "stop"
	// ActionFailProduce: write fault-fired, then cut this worker's links to the
	// leader of output partition 0 until the produce has failed (case 7).
	ActionFailProduce Action = "fail-produce"
	// ActionStall: write fault-fired, then hold the open transaction (and the
	// connection) for Arm.Stall before going on (lock-expiry-during-txn).
	ActionStall Action = "stall"
	// ActionStallOverlap: stall like ActionStall, and every other worker of
	// the cell (Arm.Follower) holds the records it re-acquires from the
	// stalled one: the stalled worker then resumes, and sends its acks,
	// while another member holds its records (lock-expiry-stale-acks; the
	// case TxnShareAcknowledge's member tags exist for, docs/FINDINGS.md 2).
	ActionStallOverlap Action = "stall-overlap"
	// ActionHoldRedelivered is the other workers' half of
	// ActionStallOverlap: write fault-fired, then hold, before
	// beginTransaction and once, the first polled batch that carries a
	// redelivered record (delivery count above 1), for Arm.Stall.
	ActionHoldRedelivered Action = "hold-redelivered"
)

// Actions are what a row (or a scenario file) may arm a worker with.
// ActionHoldRedelivered is not among them: it is ActionStallOverlap's other
// half, armed by the runner on the other workers (Arm.Follower).
var Actions = []Action{ActionKill, ActionTerm, ActionAbort, ActionStop, ActionFailProduce, ActionStall, ActionStallOverlap}

// Stalls reports whether the armed worker holds its point for Arm.Stall.
func (a Action) Stalls() bool { return a == ActionStall || a == ActionStallOverlap }

// ActsAt says whether the loop carries a out at p, and where it does when
// it does not: a kill and a stall act anywhere; an abort replaces the
// commit, so it acts at before-commit; a cut produce link fails the produce
// that follows before-send; a graceful stop is honoured where the loop
// checks for it inside the open transaction (after the send, before the
// commit: elsewhere the loop takes further steps first, and the fault is
// not at its point); a zombie is frozen mid-transaction, where the rows
// fence it (after the send, before the commit).
func (a Action) ActsAt(p Point) (bool, []Point) {
	var at []Point
	switch a {
	case ActionAbort:
		at = []Point{PointBeforeCommit}
	case ActionFailProduce:
		at = []Point{PointBeforeSend}
	case ActionTerm, ActionStop:
		at = []Point{PointAfterSend, PointBeforeCommit}
	default:
		return true, Points
	}
	return slices.Contains(at, p), at
}

// Arm tells one worker incarnation where to fire a one-shot fault. The zero
// value is unarmed. CONTRACT.md "Crash-point arming": the orchestrator draws the
// slot and Batch from the seed; only the slot's first incarnation is armed.
type Arm struct {
	Fault  string `json:"fault,omitempty"` // the fault's name, for the fault-fired event
	Point  Point  `json:"point,omitempty"`
	Action Action `json:"action,omitempty"`
	// Batch is k: fire at the k-th non-empty batch (1-based) of this incarnation.
	Batch int `json:"batch,omitempty"`
	// Stall is how long ActionStall holds the transaction open.
	Stall Duration `json:"stall,omitempty"`
}

// Armed reports whether the arm is set.
func (a Arm) Armed() bool { return a.Point != "" && a.Batch > 0 }

// At reports whether the arm fires at point p on the given non-empty batch.
func (a Arm) At(p Point, batch int) bool { return a.Armed() && a.Point == p && a.Batch == batch }

// Follower is the arm of the cell's other workers (first incarnations) when
// a has one: ActionStallOverlap's ActionHoldRedelivered, for half the
// armed stall. The armed worker polls at t0 and resumes at t0+Stall, Stall
// being the lock L plus a margin m (scenarios' stallPastLock); a follower
// re-acquires its records at about t0+L and holds them until about
// t0+L+(L+m)/2, which is after t0+L+m whenever m < L, and before the
// follower's own lock ends at t0+2L: so the stalled worker's acks arrive
// while the follower holds the records, without the follower knowing L.
func (a Arm) Follower() (Arm, bool) {
	if a.Action != ActionStallOverlap {
		return Arm{}, false
	}
	return Arm{Fault: a.Fault, Point: PointBeforeBegin, Action: ActionHoldRedelivered, Stall: a.Stall / 2}, true
}

// HoldsRedelivered reports whether the arm is a follower's
// (ActionHoldRedelivered): it fires on a redelivered batch, not at Batch.
func (a Arm) HoldsRedelivered() bool { return a.Action == ActionHoldRedelivered && a.Stall > 0 }
