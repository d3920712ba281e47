package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// checkLoss judges the inputs without a valid output: lost when the share
// group is done with them (below its start offset), and then also
// ack-without-output (how loss shows) and, when the broker archived them
// (delivery limit reached or rejected), archived; unseen when the group was
// not done with them, or it is unknown (liveness: the part is UNKNOWN).
//
// A loss is "lost" (which implicit cells allow after an abort) only with a
// cause the history shows: the record's transaction aborted or was left
// unfinished and its worker then accepted it (implicit: its next poll), or
// the broker archived it (reported as archived, allowed nowhere). A loss
// although its transaction committed is "lost-after-commit", one with no
// such history "lost-unexplained"; no cell allows either.
func checkLoss(s *state) *part {
	p := newPart()
	unknownStart := make(map[int32]bool)
	var lost []string
	for _, id := range s.ids {
		if len(s.valid[id]) > 0 {
			continue
		}
		done := true
		for _, in := range s.copiesOf(id) {
			start, known := s.obs.ShareStart[in.Partition]
			if !known {
				unknownStart[in.Partition] = true
			}
			if !known || in.Offset >= start {
				done = false
			}
		}
		if !done {
			p.counts.Unseen++
			p.report(verdict.AnomalyUnseen, id, "", func() string { return s.unseenSummary(id) })
			continue
		}
		lost = append(lost, id)
	}
	why := s.lossCauses(lost)
	for _, id := range lost {
		j := why[id]
		p.counts.Lost++
		p.report(j.anomaly, id, j.cause, func() string { return s.lostSummary(id) + "; " + j.cause + ": " + j.detail })
		p.report(verdict.AnomalyAckWithoutOutput, id, j.cause, func() string {
			return "acknowledged without a committed output: " + s.lostSummary(id)
		})
		if why := s.archivedWhy(id); why != "" {
			p.counts.Archived++
			p.report(verdict.AnomalyArchived, id, "", func() string {
				return fmt.Sprintf("archived (%s) with no committed output: %s", why, s.lostSummary(id))
			})
		}
	}
	if p.counts.Unseen > 0 {
		p.unknown = fmt.Sprintf("%d of %d input ids unseen: no committed output and the share "+
			"group was not done with them when the drain ended (liveness, not safety)",
			p.counts.Unseen, s.inputCount())
		if len(unknownStart) > 0 {
			parts := make([]int32, 0, len(unknownStart))
			for q := range unknownStart {
				parts = append(parts, q)
			}
			sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
			p.unknown += fmt.Sprintf("; share start offset unknown for input partitions %v", parts)
		}
	}
	return p
}

// lossJudgement is the name a loss counts under, its cause and the detail
// an example shows.
type lossJudgement struct {
	anomaly, cause, detail string
}

// lossCauses names the cause of each lost id. The transactions that held a
// lost record, and the accepts after them, are looked up for the lost ids
// only: usually there are none.
func (s *state) lossCauses(lost []string) map[string]lossJudgement {
	out := make(map[string]lossJudgement, len(lost))
	if len(lost) == 0 {
		return out
	}
	want := make(map[string]bool, len(lost))
	for _, id := range lost {
		want[id] = true
	}
	held := make(map[string][]txnRef)
	for t, info := range s.txns {
		for _, set := range []map[string]struct{}{info.sent, info.acked} {
			for id := range set {
				if want[id] && !containsTxn(held[id], t) {
					held[id] = append(held[id], t)
				}
			}
		}
	}
	accepts := s.acksAfterCommit(want)
	polls := s.pollTimes()
	for _, id := range lost {
		out[id] = s.lossCause(id, held[id], accepts, polls)
	}
	return out
}

func (s *state) lossCause(id string, held []txnRef, acks map[workerRecord][]ackSeen, polls map[string][]int64) lossJudgement {
	sort.Slice(held, func(i, j int) bool {
		if held[i].worker != held[j].worker {
			return held[i].worker < held[j].worker
		}
		return held[i].seq < held[j].seq
	})
	for _, t := range held {
		if s.txns[t].outcome() == txnCommitted {
			return lossJudgement{verdict.AnomalyLostAfterCommit, CauseTxnCommitted,
				fmt.Sprintf("%s committed (%s), yet no output of it is visible", t, s.txns[t].endedBy)}
		}
	}
	if why := s.archivedWhy(id); why != "" {
		return lossJudgement{verdict.AnomalyLost, CauseArchived, why}
	}
	for _, t := range held {
		info := s.txns[t]
		for _, ack := range acks[workerRecord{t.worker, id}] {
			if ack.ts > info.lastAt && ack.typ == history.OK && ack.kind == history.AckAccept {
				return lossJudgement{verdict.AnomalyLost, CauseAcceptedAfterAbort,
					fmt.Sprintf("%s ended %s; %s ACCEPTed it at %s", t, ended(info), t.worker, s.at(ack.ts))}
			}
		}
		if s.obs.Mode != ctp.Implicit {
			continue
		}
		if at := s.pollAfter(polls, t.worker, info.lastAt); at != 0 {
			return lossJudgement{verdict.AnomalyLost, CauseAcceptedByNextPoll,
				fmt.Sprintf("%s ended %s; %s polled again at %s, which accepted the batch", t, ended(info), t.worker, s.at(at))}
		}
	}
	if len(held) == 0 {
		return lossJudgement{verdict.AnomalyLostUnexplained, CauseNoAbortThenAccept, "no transaction held it"}
	}
	return lossJudgement{verdict.AnomalyLostUnexplained, CauseNoAbortThenAccept,
		fmt.Sprintf("held by %s, none followed by an accept", listTxns(held))}
}

// pollAfter returns when worker next polled after ts: its first poll ok
// after ts, or else its stop event (an implicit loop polls until it is
// stopped, and polls that bring nothing are not recorded); 0 if neither
// (the worker died: its batch was released with its connection).
func (s *state) pollAfter(polls map[string][]int64, worker string, ts int64) int64 {
	mine := polls[worker]
	if i := sort.Search(len(mine), func(i int) bool { return mine[i] > ts }); i < len(mine) {
		return mine[i]
	}
	if at := s.stoppedAt[worker]; at > ts {
		return at
	}
	return 0
}

// pollTimes returns each worker's poll ok times, sorted (read-only: built
// once, on first use).
func (s *state) pollTimes() map[string][]int64 {
	if s.polls != nil {
		return s.polls
	}
	polls := make(map[string][]int64)
	for _, e := range s.obs.History {
		if e.F == history.FPoll && e.Type == history.OK {
			polls[e.Worker] = append(polls[e.Worker], e.TS)
		}
	}
	for _, ts := range polls {
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	}
	s.polls = polls
	return polls
}

// ended says how a transaction that did not commit ended.
func ended(info *txnInfo) string {
	if info.endedBy != "" {
		return "with " + info.endedBy
	}
	if info.closedBy != "" {
		return "with " + info.closedBy
	}
	return "unfinished (no commit invoked)"
}

func containsTxn(ts []txnRef, t txnRef) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func listTxns(ts []txnRef) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return listIDs(names)
}

// archivedWhy says why the broker archived the record, "" if it did not
// (as far as the histories show).
func (s *state) archivedWhy(id string) string {
	if w, ok := s.rejected[id]; ok {
		return "rejected by " + w
	}
	if limit := s.obs.DeliveryLimit; limit > 0 && s.maxDelivery[id] >= limit {
		return fmt.Sprintf("delivered %d times, the limit is %d", s.maxDelivery[id], limit)
	}
	return ""
}

func (s *state) lostSummary(id string) string {
	in := s.inputs[id]
	return fmt.Sprintf("p%d o%d has no committed output, yet the share group is done with it "+
		"(%s); %s", in.Partition, in.Offset, s.startWords(in.Partition), s.deliveryNote(id))
}

// startWords says partition p's share start offset as the checker judged by
// it and, where a rule moved it, as Kafka reported it.
func (s *state) startWords(p int32) string {
	start, known := s.obs.ShareStart[p]
	if !known {
		return "share start offset unknown"
	}
	words := fmt.Sprintf("share start offset %d", start)
	if reported, ok := s.obs.ShareStartReported[p]; ok && reported != start {
		words += fmt.Sprintf(", Kafka reported %d (%s)", reported, s.obs.ShareStartRule[p])
	}
	return words
}

func (s *state) unseenSummary(id string) string {
	in := s.inputs[id]
	where := s.startWords(in.Partition)
	return fmt.Sprintf("p%d o%d has no committed output and the share group was not done with it "+
		"when the drain ended (%s); %s", in.Partition, in.Offset, where, s.deliveryNote(id))
}

func (s *state) deliveryNote(id string) string {
	if d := s.maxDelivery[id]; d > 0 {
		return fmt.Sprintf("highest delivery count polled: %d", d)
	}
	return "no history shows it polled"
}
