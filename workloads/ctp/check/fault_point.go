package check

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// checkFaultPoints verifies that every self-inflicted kill or stop took
// effect at its point: a cell whose armed worker went on with its loop after
// fault-fired did not test the corner case it names (a crash after the send
// that sent acks is not a crash after the send), so it is UNKNOWN.
//
// From the worker's fault-fired event on: after a kill the incarnation
// writes nothing at all; after a stop it takes no loop step until its
// resumed event (the orchestrator's SIGCONT). Fault-fired events that do not
// name their action (older histories) are not judged.
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
			case string(ctp.ActionKill), string(ctp.ActionStop):
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
