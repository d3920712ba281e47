package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// pendingRedelivery is a record acquired by a second worker while the first
// worker's transaction held its ack pending (native realization).
type pendingRedelivery struct {
	id     string
	holder txnRef
	other  string // the worker that polled it
	polled int64
	info   *txnInfo
}

// checkRedeliveredWhilePending finds, in the native realization, records
// that a worker B polled while worker A's transaction held their ack pending:
// after A's txn-acks ok and before A's commit outcome (or abort). If A then
// commits, the record is processed twice; KIP-1289 leaves open whether the
// broker blocks this (ARCHITECTURE.md, native realization), and this is how
// the suite sees it. Other modes hold no acks in a transaction (the ledger
// realization decides from the ledger), so the check does not apply there.
//
// B's poll ok time is when B certainly holds the record; A's acks are
// certainly pending from its txn-acks ok. If A's history ends without an
// outcome, A died: a dead worker cannot invoke commit any more, so the window
// closes at A's last event (a commit invoked just before dying may still
// complete on the broker; that tail is not judged). It also closes when
// another worker with A's transactional id starts: the replacement's
// InitProducerId fences A and aborts its open transaction (ORACLE.md, case 2
// and zombie-fenced), before that worker's first poll.
func checkRedeliveredWhilePending(s *state) *part {
	p := newPart()
	if s.obs.Mode != ctp.Transactional || !kip1289.BrokerSettles(s.obs.Realization) {
		return p
	}
	// The windows of one id form a chain through next (index+1, 0 ends it),
	// so the common case, one window per id, costs no slice per id.
	type window struct {
		txn        txnRef
		info       *txnInfo
		start, end int64
		next       int
	}
	var windows []window
	byID := make(map[string]int)
	for t, info := range s.txns {
		if info.acksAt == 0 {
			continue
		}
		end := info.closedAt
		if end == 0 {
			end = s.lastTS[t.worker]
		}
		if fenced := s.fencedAfter(t.worker, info.acksAt); fenced != 0 && fenced < end {
			end = fenced
		}
		if timedOut := s.timedOutAt(t, info); timedOut != 0 && timedOut < end {
			end = timedOut
		}
		for id := range info.acked {
			windows = append(windows, window{t, info, info.acksAt, end, byID[id]})
			byID[id] = len(windows)
		}
	}
	if len(byID) == 0 {
		return p
	}
	first := make(map[string]pendingRedelivery)
	for _, e := range s.obs.History {
		if e.F != history.FPoll || e.Type != history.OK {
			continue
		}
		for _, r := range e.Records {
			for i := byID[r.ID]; i != 0; i = windows[i-1].next {
				w := windows[i-1]
				if w.txn.worker == e.Worker || e.TS <= w.start || e.TS >= w.end {
					continue
				}
				pr := pendingRedelivery{id: r.ID, holder: w.txn, other: e.Worker, polled: e.TS, info: w.info}
				if old, seen := first[r.ID]; !seen || pendingLess(pr, old) {
					first[r.ID] = pr
				}
			}
		}
	}
	found := make([]pendingRedelivery, 0, len(first))
	for _, pr := range first {
		found = append(found, pr)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].id < found[j].id })
	for _, pr := range found {
		p.report(verdict.AnomalyRedeliveredWhilePending, pr.id, "", func() string { return s.pendingSummary(pr) })
	}
	return p
}

// timedOutAt is when the coordinator aborts t on its transaction timeout, for
// a transaction that did not commit: its pending acks were discarded then,
// so a record redelivered later was not pending (under `hold` the reference
// broker returns it only after that abort; lock-expiry-during-txn's stall
// outlasts the timeout). begin + timeout is no later than the coordinator's
// deadline, which runs from the transaction's first partition. A transaction
// that committed did not time out: its window runs to the commit. 0 when the
// history does not say the worker's timeout.
func (s *state) timedOutAt(t txnRef, info *txnInfo) int64 {
	d := s.txnTimeout[t.worker]
	if d <= 0 || info.beganAt == 0 || info.sawCommitOK {
		return 0
	}
	return info.beganAt + d.Nanoseconds()
}

func (s *state) pendingSummary(p pendingRedelivery) string {
	end := "its worker's history ends with it open"
	if p.info.closedAt != 0 {
		end = fmt.Sprintf("%s at %s", p.info.closedBy, s.at(p.info.closedAt))
	}
	return fmt.Sprintf("polled by %s at %s while %s held its ack pending (acks added at %s; %s)",
		p.other, s.at(p.polled), p.holder, s.at(p.info.acksAt), end)
}

// pendingLess orders two findings about one record: earliest poll first,
// then by names, so the example does not depend on map order.
func pendingLess(a, b pendingRedelivery) bool {
	if a.polled != b.polled {
		return a.polled < b.polled
	}
	if a.holder.worker != b.holder.worker {
		return a.holder.worker < b.holder.worker
	}
	if a.holder.seq != b.holder.seq {
		return a.holder.seq < b.holder.seq
	}
	return a.other < b.other
}
