package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// ackFate is what became of a record's ack at the worker whose transaction
// committed the record's output: whether the ack left, and if not, what
// stopped it. It is read from that worker's own events after the commit, in
// the order they happened, so the first thing that happened to the worker
// decides. A worker killed at its after-commit point is a crash even though
// its replacement starts later with its transactional id: the replacement
// replaced a dead worker, it did not fence a live one.
type ackFate struct {
	kind   fateKind
	at     int64
	detail string
}

// fateKind orders nothing: each kind is one cause (duplicate.go maps them).
type fateKind int

const (
	// fateAckLeft: the ack left the worker. Explicit and ledger: it invoked
	// an ack of the record after the commit and lived past it. Implicit: it
	// polled twice after the commit (the first poll marks the record
	// accepted, the fetch after it carries the ack), or polled until its
	// stop. Native: the ack was inside the committed transaction.
	fateAckLeft fateKind = iota
	// fateKilled: its own fault killed it (fault-fired, action kill)
	// before the ack left.
	fateKilled
	// fateDied: its history ends before the ack left with no stop event and
	// no kill of its own: killed from outside, or an older history whose
	// fault-fired event does not name its action.
	fateDied
	// fateFrozen: its own fault froze it (fault-fired, action stop) before
	// the ack left: a zombie, fenced by its replacement.
	fateFrozen
	// fateSuperseded: another worker with its transactional id started
	// while it still ran (it wrote events after that start), before the
	// ack left: fenced.
	fateSuperseded
	// fateStopped: it stopped cleanly before acking (explicit, ledger);
	// closing its consumer released what it held.
	fateStopped
	// fateNeverAcked: it went on with its loop and never acknowledged the
	// record: nothing stopped the ack, the loop left it out.
	fateNeverAcked
)

// native reports whether the cell ran the native realization, whose acks
// go inside the transaction and never after it.
func (s *state) native() bool {
	return s.obs.Mode == ctp.Transactional && kip1289.BrokerSettles(s.obs.Realization)
}

// ackFateAfter derives the fate of id's ack after t committed. events are
// t's worker's history indexes, in order (workerEvents).
func (s *state) ackFateAfter(t txnRef, info *txnInfo, id string, events []int) ackFate {
	if s.native() {
		if _, ok := info.txnAcked[id]; ok {
			return ackFate{kind: fateAckLeft, at: info.closedAt,
				detail: fmt.Sprintf("its ack was inside %s, which committed at %s", t, s.at(info.closedAt))}
		}
		return ackFate{kind: fateNeverAcked, at: info.closedAt,
			detail: fmt.Sprintf("%s committed its output without its ack: no txn-acks ok of that transaction names it "+
				"(the native realization acknowledges only inside the transaction)", t)}
	}
	implicit := s.obs.Mode == ctp.Implicit
	replacedAt := s.fencedAfter(t.worker, info.closedAt)
	from := sort.Search(len(events), func(i int) bool { return s.obs.History[events[i]].TS >= info.closedAt })
	polls, firstPoll, invoked := 0, int64(0), int64(0)
	for _, i := range events[from:] {
		e := s.obs.History[i]
		if e.F == history.FCommit && e.Txn == t.seq {
			continue // the commit itself
		}
		if replacedAt != 0 && replacedAt < e.TS {
			return ackFate{kind: fateSuperseded, at: replacedAt,
				detail: fmt.Sprintf("a worker with %s's transactional id started at %s while %s still ran (%s %s at %s), before its ack left",
					t.worker, s.at(replacedAt), t.worker, e.F, e.Type, s.at(e.TS))}
		}
		switch {
		case e.F == history.FFaultFired && e.Attrs["action"] == string(ctp.ActionKill):
			return ackFate{kind: fateKilled, at: e.TS,
				detail: fmt.Sprintf("%s was killed at its %s point (%s) at %s, after %s committed and before its ack left",
					t.worker, e.Point, e.Fault, s.at(e.TS), t)}
		case e.F == history.FFaultFired && e.Attrs["action"] == string(ctp.ActionStop):
			return ackFate{kind: fateFrozen, at: e.TS,
				detail: fmt.Sprintf("%s was frozen at its %s point (%s) at %s, after %s committed and before its ack left",
					t.worker, e.Point, e.Fault, s.at(e.TS), t)}
		case e.F == history.FStop && (implicit || invoked != 0):
			// Implicit: the loop polled until it stopped, and polls that
			// bring nothing are not recorded (loss.go reads it alike).
			return ackFate{kind: fateAckLeft, at: e.TS, detail: fmt.Sprintf("%s acked it and stopped at %s", t.worker, s.at(e.TS))}
		case e.F == history.FStop:
			return ackFate{kind: fateStopped, at: e.TS,
				detail: fmt.Sprintf("%s stopped at %s before acking it; closing its consumer released it", t.worker, s.at(e.TS))}
		case implicit && e.F == history.FPoll && e.Type == history.OK:
			polls++
			if polls == 1 {
				firstPoll = e.TS
				continue
			}
			return ackFate{kind: fateAckLeft, at: e.TS,
				detail: fmt.Sprintf("%s polled again at %s (accepting it) and once more at %s", t.worker, s.at(firstPoll), s.at(e.TS))}
		case !implicit && e.F == history.FAck:
			if invoked == 0 && namesRecord(e, id) {
				invoked = e.TS
			}
		case isLoopStep(e.F):
			if invoked != 0 {
				return ackFate{kind: fateAckLeft, at: invoked, detail: fmt.Sprintf("%s acked it at %s", t.worker, s.at(invoked))}
			}
			if implicit && polls > 0 {
				continue // the next batch; the ack rides on the fetch after the poll
			}
			what := "invoked no ack of it"
			if implicit {
				what = "never polled again, which is implicit mode's ack"
			}
			return ackFate{kind: fateNeverAcked, at: e.TS,
				detail: fmt.Sprintf("%s went on (%s %s at %s) after %s committed and %s", t.worker, e.F, e.Type, s.at(e.TS), t, what)}
		}
	}
	end := s.lastTS[t.worker]
	switch {
	case invoked != 0:
		return ackFate{kind: fateDied, at: end,
			detail: fmt.Sprintf("%s's history ends at %s, its ack of the record invoked at %s and never answered", t.worker, s.at(end), s.at(invoked))}
	case polls > 0:
		return ackFate{kind: fateDied, at: end,
			detail: fmt.Sprintf("%s's history ends at %s after its next poll at %s, before the fetch its ack rides on", t.worker, s.at(end), s.at(firstPoll))}
	}
	return ackFate{kind: fateDied, at: end,
		detail: fmt.Sprintf("%s's history ends after %s's commit ok with no ack of it and no stop event", t.worker, t)}
}

// namesRecord reports whether e's records include id.
func namesRecord(e history.Event, id string) bool {
	for _, r := range e.Records {
		if r.ID == id {
			return true
		}
	}
	return false
}

// workerEvents returns, for each of the given workers, the indexes of its
// events in the history, in order: only the first deliveries' workers of
// duplicated records need them, so they are not part of the shared state.
func (s *state) workerEvents(workers map[string]bool) map[string][]int {
	out := make(map[string][]int, len(workers))
	if len(workers) == 0 {
		return out
	}
	for i, e := range s.obs.History {
		if workers[e.Worker] {
			out[e.Worker] = append(out[e.Worker], i)
		}
	}
	return out
}
