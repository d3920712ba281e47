package check

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// checkDuplicates owns processed and the duplicate counts (CONTRACT.md: an
// input id with two or more valid committed outputs is duplicated), and
// names each duplicate by its cause.
//
// Redelivery is the only way at-least-once modes may duplicate: the first
// delivery committed its output but its ack did not take, so the record was
// delivered again. So a duplicate is "duplicate" (which explicit and
// implicit cells allow) only when its outputs come from different deliveries
// and the history shows why the first delivery's ack did not take (cause.go).
// Two outputs of one delivery are "duplicate-in-one-delivery"; different
// deliveries without a reason are "duplicate-unexplained"; a first delivery
// whose worker went on without ever acknowledging it is
// "duplicate-never-acked" (nothing released it: the loop left its ack out);
// no cell allows any of them. An id with three outputs takes the worst of
// its consecutive pairs.
func checkDuplicates(s *state) *part {
	p := newPart()
	dups := make(map[string]bool)
	for _, id := range s.ids {
		if outs := s.valid[id]; len(outs) > 1 {
			dups[id] = true
		}
	}
	acks := s.acksAfterCommit(dups)
	events := s.workerEvents(s.firstWorkers(dups))
	for _, id := range s.ids {
		outs := s.valid[id]
		if len(outs) == 0 {
			continue
		}
		p.counts.Processed++
		if len(outs) < 2 {
			continue
		}
		p.counts.Duplicated++
		p.counts.ExtraOutputs += len(outs) - 1
		copies := s.outputCopies(id, outs)
		worst := dupJudgement{class: dupRedelivered}
		for i := 1; i < len(copies); i++ {
			if j := s.judgeDuplicate(copies[i-1], copies[i], acks, events); i == 1 || j.class > worst.class {
				worst = j
			}
		}
		p.report(worst.anomaly(), id, worst.cause, func() string { return s.duplicateSummary(copies, worst) })
	}
	return p
}

// firstWorkers are the workers that wrote an output of a duplicated record:
// any of them can be a pair's first delivery, whose events after its commit
// ack_fate.go reads.
func (s *state) firstWorkers(dups map[string]bool) map[string]bool {
	ws := make(map[string]bool)
	for id := range dups {
		for _, idx := range s.valid[id] {
			ws[s.obs.Outputs[idx].Worker] = true
		}
	}
	return ws
}

// outputCopy is one valid output of a duplicated record and where it came from.
type outputCopy struct {
	output int // index into obs.Outputs
	txn    txnRef
	from   delivery
	end    int64 // when its transaction ended, for ordering
}

// outputCopies returns the record's outputs in the order of the deliveries
// they came from (the broker's delivery counts, then the polls), then of
// their transactions' ends (the commit's outcome; a transaction without one
// at its worker's last event), ties by where the output sits.
func (s *state) outputCopies(id string, outs []int) []outputCopy {
	copies := make([]outputCopy, len(outs))
	for i, idx := range outs {
		o := s.obs.Outputs[idx]
		c := outputCopy{output: idx, txn: txnRef{o.Worker, o.Txn}, end: math.MaxInt64}
		if info := s.txns[c.txn]; info != nil {
			c.from = info.from[id]
			c.end = info.closedAt
			if c.end == 0 {
				c.end = s.lastTS[o.Worker]
			}
		}
		copies[i] = c
	}
	outputs := s.obs.Outputs
	sort.SliceStable(copies, func(i, j int) bool {
		// By delivery first: "the first delivery" is the broker's first
		// acquisition. A worker that held a batch past its lock commits
		// after the worker that acquired it second (lock-expiry-race), so
		// ordering by the transactions' ends would judge the second
		// delivery's clean ACCEPT as the first's and call the duplicate
		// unexplained. The polls do not order them either: a client
		// prefetches, and a worker stalled past its lock polls, after
		// the stall, records its client acquired before it (delivery 1)
		// that another worker has since had again (delivery 2).
		if ci, cj := copies[i].from.count, copies[j].from.count; ci != 0 && cj != 0 && ci != cj {
			return ci < cj
		}
		if fi, fj := copies[i].from.ts, copies[j].from.ts; fi != 0 && fj != 0 && fi != fj {
			return fi < fj
		}
		if copies[i].end != copies[j].end {
			return copies[i].end < copies[j].end
		}
		return outputLess(outputs[copies[i].output], outputs[copies[j].output])
	})
	return copies
}

// dupClass orders the kinds of duplicate, worst last.
type dupClass int

const (
	dupRedelivered dupClass = iota
	dupNeverAcked
	dupUnexplained
	dupOneDelivery
)

// dupJudgement is the kind of one pair of outputs, its cause and the detail
// an example shows.
type dupJudgement struct {
	class  dupClass
	cause  string
	detail string
}

func (j dupJudgement) anomaly() string {
	switch j.class {
	case dupOneDelivery:
		return verdict.AnomalyDuplicateInOneDelivery
	case dupUnexplained:
		return verdict.AnomalyDuplicateUnexplained
	case dupNeverAcked:
		return verdict.AnomalyDuplicateNeverAcked
	}
	return verdict.AnomalyDuplicate
}

// judgeDuplicate says why the record has an output from b after one from a,
// in this precedence (ORACLE.md "Anomalies the checker names"): one
// transaction or one delivery; the first transaction's outcome; a second
// delivery polled before the first transaction committed (the first
// acquisition ended while it was held); the ack after the commit (failed,
// unknown, a RELEASE, an ACCEPT); what became of the first worker before its
// ack left (ack_fate.go: killed, frozen, superseded, or went on without
// acking); and last, with the ack gone out, what released the record.
func (s *state) judgeDuplicate(a, b outputCopy, acks map[workerRecord][]ackSeen, events map[string][]int) dupJudgement {
	switch {
	case a.txn == b.txn:
		return dupJudgement{dupOneDelivery, CauseOneTransaction, fmt.Sprintf("both outputs are %s's", a.txn)}
	case a.txn.worker == b.txn.worker && a.from.poll != 0 && a.from.poll == b.from.poll:
		return dupJudgement{dupOneDelivery, CauseOneDelivery,
			fmt.Sprintf("%s and txn %d processed the same poll (at %s)", a.txn, b.txn.seq, s.at(a.from.ts))}
	}
	info := s.txns[a.txn]
	switch info.outcome() {
	case txnUnrecorded:
		return dupJudgement{dupUnexplained, CauseNoHistory, fmt.Sprintf("no event names %s", a.txn)}
	case txnAborted, txnNeverCommitted:
		return dupJudgement{dupRedelivered, CauseFirstNotCommitted, fmt.Sprintf("%s did not commit, yet its output shows", a.txn)}
	case txnUnknown:
		return dupJudgement{dupRedelivered, CauseCommitUnknown, fmt.Sprintf("%s ended %s", a.txn, info.endedBy)}
	}
	w, committed, id := a.txn.worker, info.closedAt, s.obs.Outputs[a.output].Key
	// A later delivery: the broker counted a second acquisition (or the
	// counts are unknown and another worker processed it). The same count
	// again is no redelivery; only a cluster fault explains it (below).
	later := b.from.count > a.from.count || (b.txn.worker != w && (a.from.count == 0 || b.from.count == 0))
	if later && b.from.ts != 0 && b.from.ts < committed {
		// No ack after the commit could have kept the record: it was
		// acquired again while the first worker still held it (and, native,
		// while its ack was pending in the transaction).
		return s.releasedJudgement(a, b, fmt.Sprintf("it came back as delivery %d at %s, before %s committed at %s",
			b.from.count, s.at(b.from.ts), a.txn, s.at(committed)))
	}
	accepted, stale := false, int64(0)
	for _, ack := range acks[workerRecord{w, id}] {
		if ack.ts < committed || (ack.delivery != 0 && a.from.count != 0 && ack.delivery != a.from.count) {
			continue // before the commit, or another delivery's ack
		}
		switch {
		case ack.typ == history.Fail:
			return dupJudgement{dupRedelivered, CauseAckFailed, fmt.Sprintf("%s's %s after the commit failed at %s", w, ack.kind, s.at(ack.ts))}
		case ack.typ == history.Info:
			return dupJudgement{dupRedelivered, CauseAckUnknown, fmt.Sprintf("%s's %s after the commit has an unknown outcome (%s)", w, ack.kind, s.at(ack.ts))}
		case ack.kind == history.AckRelease:
			return dupJudgement{dupRedelivered, CauseReleased, fmt.Sprintf("%s RELEASEd it after the commit", w)}
		case ack.kind == history.AckAccept && b.from.ts != 0 && b.from.ts < ack.ts:
			// The second delivery came before this ACCEPT: the first
			// acquisition had already expired or been released, so the
			// ACCEPT (whatever the broker answered) was too late to
			// prevent it (lock-expiry-race).
			if stale == 0 {
				stale = ack.ts
			}
		case ack.kind == history.AckAccept:
			accepted = true
		}
	}
	if stale != 0 && !accepted {
		return s.releasedJudgement(a, b, fmt.Sprintf("it came back as delivery %d at %s, before %s's ACCEPT at %s",
			b.from.count, s.at(b.from.ts), w, s.at(stale)))
	}
	if accepted {
		return s.acceptedJudgement(a, b, fmt.Sprintf("%s ACCEPTed it ok after %s committed", w, a.txn))
	}
	fate := s.ackFateAfter(a.txn, info, id, events[w])
	switch fate.kind {
	case fateKilled, fateDied:
		return dupJudgement{dupRedelivered, CauseCrashAfterCommit, fate.detail}
	case fateFrozen, fateSuperseded:
		return dupJudgement{dupRedelivered, CauseFencedZombie, fate.detail}
	case fateNeverAcked:
		return dupJudgement{dupNeverAcked, CauseNeverAcked, fate.detail}
	}
	if s.native() {
		// The ack committed with the transaction, and the record came
		// back after it: as an ACCEPT answered ok.
		return s.acceptedJudgement(a, b, fate.detail)
	}
	if later {
		return s.releasedJudgement(a, b, fmt.Sprintf("%s; it came back as delivery %d", fate.detail, b.from.count))
	}
	if b.from.ts > a.from.ts {
		if f, ok := s.clusterFaultBetween(a.from.ts, b.from.ts); ok {
			// A new leader knows only the persisted share-partition state:
			// an acquisition in flight when the old one went down is not
			// counted, so the record comes back with the same delivery
			// count (docs/FINDINGS.md, leadership changes).
			return dupJudgement{dupRedelivered, CauseLeaderLostState,
				fmt.Sprintf("%s struck the cluster at %s between the deliveries; the new leader redelivered it as delivery %d again",
					f.Name, s.at(f.At.UnixNano()), b.from.count)}
		}
	}
	return dupJudgement{dupUnexplained, CauseNoLaterDelivery,
		fmt.Sprintf("the second output's delivery %d is not later than the first's %d", b.from.count, a.from.count)}
}

// acceptedJudgement: the first delivery's ack took (an ACCEPT answered ok,
// or, native, the ack inside the committed transaction), and the record
// came back all the same. Only a cluster fault between the deliveries (the
// broker lost the ack with its in-flight state) explains that.
func (s *state) acceptedJudgement(a, b outputCopy, acked string) dupJudgement {
	if f, ok := s.clusterFaultBetween(a.from.ts, b.from.ts); ok {
		return dupJudgement{dupRedelivered, CauseAckLostWithBroker,
			fmt.Sprintf("%s, then %s struck the cluster at %s before it came back as delivery %d",
				acked, f.Name, s.at(f.At.UnixNano()), b.from.count)}
	}
	return dupJudgement{dupUnexplained, CauseAcceptedYetRedelivered, acked}
}

// releasedJudgement: the first acquisition (held's) ended early and the
// record was acquired again. Its lock expired when its worker's own fault
// stalled it while it held the record (between its poll and the other
// delivery's); otherwise something released it (a leader move, a dropped
// connection), which the history does not name.
//
// A first delivery polled after the second one waited in its worker's
// client, which had acquired it before: a stall that held it there fired
// after that worker's last poll before the second delivery (a stalled
// worker does not poll).
func (s *state) releasedJudgement(held, other outputCopy, detail string) dupJudgement {
	from := held.from.ts
	if other.from.ts != 0 && from > other.from.ts {
		from = s.lastPollBefore(held.txn.worker, other.from.ts)
	}
	if f, ok := s.stallBetween(held.txn.worker, from, other.from.ts); ok {
		return dupJudgement{dupRedelivered, CauseLockExpired,
			fmt.Sprintf("%s; %s stalled holding it (%s, %s at %s), past its lock", detail, held.txn.worker, f.Name, f.Action, s.at(f.At.UnixNano()))}
	}
	return dupJudgement{dupRedelivered, CauseReleased, detail}
}

// lastPollBefore is when worker last polled before ts (0: never).
func (s *state) lastPollBefore(worker string, ts int64) int64 {
	polls := s.pollTimes()[worker]
	if i := sort.Search(len(polls), func(i int) bool { return polls[i] >= ts }); i > 0 {
		return polls[i-1]
	}
	return 0
}

// stallBetween is worker's first stall (its own fault holding what it has,
// connection up) after from and before to (0: no bound).
func (s *state) stallBetween(worker string, from, to int64) (FaultFiring, bool) {
	for _, f := range s.faults {
		at := f.At.UnixNano()
		if f.Worker != worker || at < from || (to != 0 && at > to) {
			continue
		}
		switch ctp.Action(f.Action) {
		case ctp.ActionStall, ctp.ActionStallOverlap, ctp.ActionHoldRedelivered:
			return f, true
		}
	}
	return FaultFiring{}, false
}

// ackSeen is the completion of a non-transactional ack of one record.
type ackSeen struct {
	ts   int64
	typ  history.Type
	kind string
	// delivery is the record's delivery count the ack was for (0: not
	// recorded), so that the ack of a later delivery by the same worker is
	// not read as the first delivery's.
	delivery int32
}

// acksAfterCommit returns the ack completions (ok, fail, info) of the given
// records by worker, oldest first, from one pass over the history: only
// duplicated records need them, so they are not part of the shared state.
func (s *state) acksAfterCommit(ids map[string]bool) map[workerRecord][]ackSeen {
	acks := make(map[workerRecord][]ackSeen)
	if len(ids) == 0 {
		return acks
	}
	for _, e := range s.obs.History {
		if e.F != history.FAck || e.Type == history.Invoke {
			continue
		}
		for _, r := range e.Records {
			if ids[r.ID] {
				k := workerRecord{e.Worker, r.ID}
				acks[k] = append(acks[k], ackSeen{e.TS, e.Type, e.Ack, r.Delivery})
			}
		}
	}
	return acks
}

// duplicateSummary names the outputs, their deliveries and the mechanism.
func (s *state) duplicateSummary(copies []outputCopy, j dupJudgement) string {
	from := make([]string, len(copies))
	for i, c := range copies {
		from[i] = c.txn.String()
		if c.from.count > 0 {
			from[i] += fmt.Sprintf(" (delivery %d)", c.from.count)
		}
	}
	return fmt.Sprintf("%d committed outputs, from %s; %s: %s", len(copies), strings.Join(from, ", "), j.cause, j.detail)
}

// clusterFaultBetween is the first cluster fault (the orchestrator's firing:
// a broker killed, isolated, restarted) between two deliveries of a record
// (to = 0: no end). A broker that took an ACCEPT and went down before the
// share-partition state that holds it was durable brings the record back:
// at-least-once, as ORACLE.md allows for broker faults.
func (s *state) clusterFaultBetween(from, to int64) (FaultFiring, bool) {
	for _, f := range s.faults {
		if f.Worker != history.Orchestrator {
			continue
		}
		// A cluster fault acts from its firing until the next heal (a
		// graceful restart fires when the shutdown begins, and the broker
		// keeps leading until its controlled shutdown moved leadership):
		// it counts when that window overlaps [from, to].
		at := f.At.UnixNano()
		end := s.healAfter(at)
		if (to == 0 || at <= to) && (end == 0 || end >= from) {
			return f, true
		}
	}
	for _, m := range s.leaderMoves {
		if at := m.At.UnixNano(); (to == 0 || at <= to) && m.until >= from {
			return m, true
		}
	}
	return FaultFiring{}, false
}

// healAfter is the first cluster heal at or after ts, 0 if none came.
func (s *state) healAfter(ts int64) int64 {
	i, _ := slices.BinarySearch(s.clusterHeals, ts)
	if i < len(s.clusterHeals) {
		return s.clusterHeals[i]
	}
	return 0
}
