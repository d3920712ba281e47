package check

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
)

// CauseForgottenAck names the one mechanism of redelivered-after-ack: the
// share-partition's state, as a leader loaded it, no longer held the
// acknowledgement it had confirmed (a stale state write lowered the start
// offset over acknowledged records: apache/kafka #23074).
const CauseForgottenAck = "acknowledged, then delivered again after a state reload"

// confirmedAck is the broker's confirmation that a delivery of a record was
// acknowledged: an ACCEPT answered ok, or (native) the ack inside a
// transaction whose commit was answered ok.
type confirmedAck struct {
	worker   string
	at       int64
	delivery int32
	how      string
}

// checkRedeliveredAfterAck finds records the broker handed out again after
// it had confirmed their acknowledgement, as a delivery no later than the
// acknowledged one: the share-partition's state forgot the ack, and a
// leader that loaded that state offered the record as new (Jepsen's lost
// acknowledged write, here of an acknowledgement). Allowed nowhere: an
// acknowledged record is done for every mode, so it is judged apart from
// the duplicates it may cause (explicit mode allows those; a ledger worker
// skips the record without processing it, so only this check sees it).
//
// Only deliveries whose counts are known are judged: a later acquisition
// has a higher count, so a count not higher after the confirmation is a
// delivery the broker made from a state that had lost the acknowledgement.
// A RELEASE, a refused or unanswered ack, an implicit ack (it rides on a
// fetch with no answer of its own) and a commit of unknown outcome confirm
// nothing.
func checkRedeliveredAfterAck(s *state) *part {
	p := newPart()
	acked := map[string]confirmedAck{} // the first confirmation of each id
	confirm := func(id string, a confirmedAck) {
		if a.delivery <= 0 {
			return
		}
		if prev, ok := acked[id]; !ok || a.at < prev.at {
			acked[id] = a
		}
	}
	native := s.native()
	for _, e := range s.obs.History {
		switch {
		case e.F == history.FAck && e.Type == history.OK && e.Ack == history.AckAccept:
			for _, r := range e.Records {
				confirm(r.ID, confirmedAck{e.Worker, e.TS, r.Delivery, "ACCEPTed ok"})
			}
		case native && e.F == history.FTxnAcks && e.Type == history.OK:
			t := s.txns[txnRef{e.Worker, e.Txn}]
			if t == nil || t.outcome() != txnCommitted {
				continue
			}
			for _, r := range e.Records {
				confirm(r.ID, confirmedAck{e.Worker, t.closedAt, r.Delivery, fmt.Sprintf("its ack committed in txn %d", e.Txn)})
			}
		}
	}
	type found struct {
		ack    confirmedAck
		worker string
		polled int64
		count  int32
	}
	first := map[string]found{}
	for _, e := range s.obs.History {
		if e.F != history.FPoll || e.Type != history.OK {
			continue
		}
		for _, r := range e.Records {
			a, ok := acked[r.ID]
			if !ok || r.Delivery <= 0 || r.Delivery > a.delivery || e.TS <= a.at {
				continue
			}
			if _, reloaded := s.reloadBetween(a.at, e.TS); !reloaded {
				// No leader could have loaded the state since the ack: a
				// delivery with a count not higher was acquired before it
				// and waited in its worker's client.
				continue
			}
			if _, seen := first[r.ID]; !seen {
				first[r.ID] = found{a, e.Worker, e.TS, r.Delivery}
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(first)) {
		f := first[id]
		p.report(verdict.AnomalyRedeliveredAfterAck, id, CauseForgottenAck, func() string {
			c, _ := s.reloadBetween(f.ack.at, f.polled)
			return fmt.Sprintf("%s: delivery %d %s by %s at %s, %s at %s, then delivered again as delivery %d to %s at %s",
				CauseForgottenAck, f.ack.delivery, f.ack.how, f.ack.worker, s.at(f.ack.at), c.Name, s.at(c.At.UnixNano()), f.count, f.worker, s.at(f.polled))
		})
	}
	return p
}

// reloadBetween is the first moment strictly between from and to when a
// share-partition could change leader, and so load its state again: a
// cluster fault's firing or heal (a restarted broker takes its leadership
// back), or a preparation that moved leaders.
func (s *state) reloadBetween(from, to int64) (FaultFiring, bool) {
	for _, f := range s.faults {
		if f.Worker != history.Orchestrator {
			continue
		}
		if at := f.At.UnixNano(); at > from && at < to {
			return FaultFiring{Name: f.Name + " struck the cluster", At: f.At}, true
		}
		if heal := s.healAfter(f.At.UnixNano()); heal > from && heal < to {
			return FaultFiring{Name: f.Name + " healed", At: time.Unix(0, heal)}, true
		}
	}
	for _, m := range s.leaderMoves {
		if at := m.At.UnixNano(); at > from && at < to {
			return FaultFiring{Name: m.Name, At: m.At}, true
		}
	}
	return FaultFiring{}, false
}
