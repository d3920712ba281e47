package check

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// checkFaultPoints verifies that every self-inflicted kill, stop or term took
// effect at its point: a cell whose armed worker went on with its loop after
// fault-fired did not test the corner case it names (a crash after the send
// that sent acks is not a crash after the send), so it is UNKNOWN.
//
// From the worker's fault-fired event on: after a kill the incarnation
// writes nothing at all; after a stop it takes no loop step until its
// resumed event (the orchestrator's SIGCONT); after a term (a graceful stop
// mid-transaction) its only loop steps until its stop event are the abort of
// the open transaction and the RELEASE of its batch: a commit, a poll or
// the transaction's acks would be a stop that did not stop. Fault-fired
// events that do not name their action (older histories) are not judged.
func checkFaultPoints(s *state) *part {
	p := newPart()
	type armed struct {
		action, fault, point string
		at                   int64
	}
	live := make(map[string]*armed)
	for _, e := range s.obs.History {
		a := live[e.Worker]
		if a != nil {
			switch {
			case a.action == string(ctp.ActionKill):
				p.unknown = s.faultMissed(e, a.fault, a.point, a.at, "killed")
			case a.action == string(ctp.ActionTerm) && e.F == history.FStop:
				delete(live, e.Worker)
			case a.action == string(ctp.ActionTerm):
				if isLoopStep(e.F) && !givesBack(e) {
					p.unknown = s.faultMissed(e, a.fault, a.point, a.at, "aborting and stopping")
				}
			case e.F == history.FResumed:
				delete(live, e.Worker)
			case isLoopStep(e.F):
				p.unknown = s.faultMissed(e, a.fault, a.point, a.at, "stopped and not yet resumed")
			}
			if p.unknown != "" {
				return p
			}
		}
		if e.F == history.FFaultFired {
			switch action := e.Attrs["action"]; action {
			case string(ctp.ActionKill), string(ctp.ActionStop), string(ctp.ActionTerm):
				live[e.Worker] = &armed{action: action, fault: e.Fault, point: e.Point, at: e.TS}
			}
		}
	}
	return p
}

func (s *state) faultMissed(e history.Event, fault, point string, firedAt int64, was string) string {
	return fmt.Sprintf("the fault did not act at its point: %s did %s %s at %s after fault-fired "+
		"(%s at %s, fired at %s; it should have been %s)", e.Worker, e.F, e.Type, s.at(e.TS), fault, point, s.at(firedAt), was)
}

// givesBack reports whether e is part of a graceful stop's giving back of
// its transaction: the abort, or the RELEASE of the batch after it.
func givesBack(e history.Event) bool {
	return e.F == history.FAbort || (e.F == history.FAck && e.Ack == history.AckRelease)
}

// isLoopStep reports whether f is a step of the CTP loop (not a lifecycle
// event such as start, stop, resumed or init-producer).
func isLoopStep(f string) bool {
	switch f {
	case history.FPoll, history.FBegin, history.FSend, history.FFlush, history.FLedger, history.FValidate,
		history.FTxnAcks, history.FRenew, history.FCommit, history.FAbort, history.FAck:
		return true
	}
	return false
}
