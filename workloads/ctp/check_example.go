package ctp

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
)

// checkMaxSteps bounds the steps of one example: a record that went round
// ten times would otherwise bury the story. The first and last steps stay.
const checkMaxSteps = 24

// checkDraft is an example before its steps are filled in.
type checkDraft struct {
	record  string
	summary string
}

// anomalies returns every anomaly kind with a non-zero count, each with up
// to verdict.MaxExamples minimal examples in record-id order. The steps of
// all examples come from one pass over the history.
func (s *checkState) anomalies() map[string]verdict.Found {
	counts := s.counts()
	drafts := map[string][]checkDraft{}
	kinds := map[string]int{
		verdict.AnomalyLost:                    counts.Lost,
		verdict.AnomalyAckWithoutOutput:        counts.Lost, // how loss shows: the same records
		verdict.AnomalyArchived:                counts.Archived,
		verdict.AnomalyUnseen:                  counts.Unseen,
		verdict.AnomalyDuplicate:               counts.Duplicated,
		verdict.AnomalyAbortedRead:             counts.AbortedReads,
		verdict.AnomalyTornTransaction:         counts.TornTxns,
		verdict.AnomalyPhantomOutput:           counts.Phantoms,
		verdict.AnomalyRedeliveredWhilePending: len(s.pending),
	}
	add := func(kind, record, summary string) bool {
		if len(drafts[kind]) >= verdict.MaxExamples {
			return false
		}
		drafts[kind] = append(drafts[kind], checkDraft{record, summary})
		return true
	}
	for _, id := range s.lost {
		if !add(verdict.AnomalyLost, id, s.lostSummary(id)) {
			break
		}
		add(verdict.AnomalyAckWithoutOutput, id,
			"acknowledged without a committed output: "+s.lostSummary(id))
	}
	for _, id := range s.archived {
		if !add(verdict.AnomalyArchived, id, fmt.Sprintf("archived (%s) with no committed output: %s",
			s.archivedWhy(id), s.lostSummary(id))) {
			break
		}
	}
	for _, id := range s.unseen {
		if !add(verdict.AnomalyUnseen, id, s.unseenSummary(id)) {
			break
		}
	}
	for _, id := range s.ids {
		if outs := s.valid[id]; len(outs) > 1 && !add(verdict.AnomalyDuplicate, id, s.duplicateSummary(outs)) {
			break
		}
	}
	for _, i := range s.abortedReads {
		o := s.obs.Outputs[i]
		if !add(verdict.AnomalyAbortedRead, o.Key, s.abortedReadSummary(o)) {
			break
		}
	}
	for _, t := range s.torn {
		summary := fmt.Sprintf("%s produced %d outputs but only %d are visible; missing: %s",
			t.txn, t.sent, t.visible, checkList(t.missing))
		if !add(verdict.AnomalyTornTransaction, t.missing[0], summary) {
			break
		}
	}
	for _, p := range s.sortedPhantoms() {
		o := s.obs.Outputs[p.output]
		summary := fmt.Sprintf("output p%d o%d with key %q belongs to no input: %s",
			o.Partition, o.Offset, o.Key, p.why)
		if !add(verdict.AnomalyPhantomOutput, o.Key, summary) {
			break
		}
	}
	for _, p := range s.pending {
		if !add(verdict.AnomalyRedeliveredWhilePending, p.id, s.pendingSummary(p)) {
			break
		}
	}

	steps := s.exampleSteps(drafts)
	found := make(map[string]verdict.Found)
	for kind, n := range kinds {
		if n == 0 {
			continue
		}
		f := verdict.Found{Count: n}
		for _, d := range drafts[kind] {
			st := steps[d.record]
			f.Examples = append(f.Examples, verdict.Example{
				Record:  d.record,
				Summary: d.summary,
				Steps:   append(st.texts(), s.outputLines(d.record)...),
				Fault:   s.faultAt(st.last),
			})
		}
		found[kind] = f
	}
	return found
}

func (s *checkState) lostSummary(id string) string {
	in := s.inputs[id]
	return fmt.Sprintf("p%d o%d has no committed output, yet the share group is done with it "+
		"(share start offset %d); %s", in.Partition, in.Offset, s.obs.ShareStart[in.Partition], s.deliveryNote(id))
}

func (s *checkState) unseenSummary(id string) string {
	in := s.inputs[id]
	start, known := s.obs.ShareStart[in.Partition]
	where := fmt.Sprintf("share start offset %d", start)
	if !known {
		where = "share start offset unknown"
	}
	return fmt.Sprintf("p%d o%d has no committed output and the share group was not done with it "+
		"when the drain ended (%s); %s", in.Partition, in.Offset, where, s.deliveryNote(id))
}

func (s *checkState) deliveryNote(id string) string {
	if d := s.maxDelivery[id]; d > 0 {
		return fmt.Sprintf("highest delivery count polled: %d", d)
	}
	return "no history shows it polled"
}

func (s *checkState) duplicateSummary(outs []int) string {
	from := make([]string, len(outs))
	for i, idx := range outs {
		o := s.obs.Outputs[idx]
		from[i] = fmt.Sprintf("%s txn %d", o.Worker, o.Txn)
	}
	return fmt.Sprintf("%d committed outputs, from %s", len(outs), strings.Join(from, ", "))
}

func (s *checkState) abortedReadSummary(o Output) string {
	t := checkTxn{o.Worker, o.Txn}
	info := s.txns[t]
	why := "its worker saw it aborted (" + info.endedBy + ")"
	if info.outcome() == checkTxnNeverCommitted {
		why = "its worker never invoked commit, so it cannot have committed"
	}
	return fmt.Sprintf("output p%d o%d of %s is visible to read_committed, but %s",
		o.Partition, o.Offset, t, why)
}

func (s *checkState) pendingSummary(p checkPending) string {
	end := "its worker's history ends with it open"
	if p.info.closedAt != 0 {
		end = fmt.Sprintf("%s at %s", p.info.closedBy, s.at(p.info.closedAt))
	}
	return fmt.Sprintf("polled by %s at %s while %s held its ack pending (acks added at %s; %s)",
		p.other, s.at(p.polled), p.holder, s.at(p.info.acksAt), end)
}

// sortedPhantoms orders the phantoms by key, then where the output sits.
func (s *checkState) sortedPhantoms() []checkPhantom {
	out := append([]checkPhantom(nil), s.phantoms...)
	outs := s.obs.Outputs
	sort.SliceStable(out, func(i, j int) bool {
		return checkOutputLess(outs[out[i].output], outs[out[j].output])
	})
	return out
}

// checkSteps are one example's events, oldest first.
type checkSteps struct {
	lines []string
	last  int64 // time of the newest step, 0 if none
}

func (st checkSteps) texts() []string {
	if len(st.lines) <= checkMaxSteps {
		return append([]string(nil), st.lines...)
	}
	head := checkMaxSteps / 2
	tail := checkMaxSteps - head - 1
	out := append([]string(nil), st.lines[:head]...)
	out = append(out, fmt.Sprintf("... %d steps left out ...", len(st.lines)-head-tail))
	return append(out, st.lines[len(st.lines)-tail:]...)
}

// exampleSteps collects, for every example record, the events that matter:
// those that name the record (polls, sends, acks, commits with its batch),
// the outcome events of the transactions that held it, and the fault-fired
// events of the workers that touched it. Two passes: the first finds those
// transactions and workers, the second writes the steps in history order.
func (s *checkState) exampleSteps(drafts map[string][]checkDraft) map[string]checkSteps {
	want := make(map[string]bool)
	for _, ds := range drafts {
		for _, d := range ds {
			want[d.record] = true
		}
	}
	steps := make(map[string]checkSteps)
	if len(want) == 0 {
		return steps
	}
	txnsOf := make(map[checkTxn]map[string]bool)
	workersOf := make(map[string]map[string]bool)
	for _, e := range s.obs.History {
		for _, id := range checkTouched(e, want) {
			if workersOf[e.Worker] == nil {
				workersOf[e.Worker] = make(map[string]bool)
			}
			workersOf[e.Worker][id] = true
			if e.Txn != 0 {
				t := checkTxn{e.Worker, e.Txn}
				if txnsOf[t] == nil {
					txnsOf[t] = make(map[string]bool)
				}
				txnsOf[t][id] = true
			}
		}
	}
	addStep := func(id string, e history.Event) {
		st := steps[id]
		st.lines = append(st.lines, s.describe(e, id))
		if e.TS > st.last {
			st.last = e.TS
		}
		steps[id] = st
	}
	for _, e := range s.obs.History {
		if !checkStep(e) {
			continue
		}
		ids := checkTouched(e, want)
		also := func(related map[string]bool) {
			for id := range related {
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
		if e.Txn != 0 && checkTxnStep(e) {
			also(txnsOf[checkTxn{e.Worker, e.Txn}])
		}
		if e.F == history.FFaultFired {
			also(workersOf[e.Worker])
		}
		for _, id := range ids {
			addStep(id, e)
		}
	}
	return steps
}

// checkStep reports whether an event that names an example's record is a
// step of it. Invokes are left out (their completion follows) except a
// commit's, which dates a commit that never completed, and an abort's, which
// says why.
func checkStep(e history.Event) bool {
	return e.Type != history.Invoke || e.F == history.FCommit || e.F == history.FAbort
}

// checkTxnStep reports whether a transaction-level event belongs in the
// example of every record the transaction held.
func checkTxnStep(e history.Event) bool {
	if !checkStep(e) {
		return false
	}
	switch e.F {
	case history.FCommit, history.FAbort, history.FTxnAcks:
		return true
	case history.FFlush, history.FValidate:
		return e.Type != history.OK && e.Type != history.Invoke
	}
	return false
}

// checkTouched returns the wanted ids that e names, each once.
func checkTouched(e history.Event, want map[string]bool) []string {
	var ids []string
	for _, r := range e.Records {
		if want[r.ID] && !slices.Contains(ids, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	for _, id := range e.IDs {
		if want[id] && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// describe writes one step: "time worker f type [txn n]: what".
func (s *checkState) describe(e history.Event, id string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s", s.at(e.TS), e.Worker, e.F, e.Type)
	if e.Txn != 0 {
		fmt.Fprintf(&b, " txn %d", e.Txn)
	}
	var what []string
	for _, r := range e.Records {
		if r.ID == id {
			w := fmt.Sprintf("p%d o%d", r.Partition, r.Offset)
			if r.Delivery > 0 {
				w += fmt.Sprintf(" delivery %d", r.Delivery)
			}
			what = append(what, w)
			break
		}
	}
	if n := len(e.Records) + len(e.IDs); n > 1 {
		what = append(what, fmt.Sprintf("batch of %d", n))
	}
	if e.Ack != "" {
		what = append(what, e.Ack)
	}
	if e.Fault != "" {
		f := "fault " + e.Fault
		if e.Point != "" {
			f += " at " + e.Point
		}
		what = append(what, f)
	}
	if e.Error != "" {
		what = append(what, "error: "+e.Error)
	}
	if len(what) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(what, ", "))
	}
	return b.String()
}

// outputLines lists the record's visible outputs, in topic order.
func (s *checkState) outputLines(id string) []string {
	var outs []Output
	for _, o := range s.obs.Outputs {
		if o.Key == id {
			outs = append(outs, o)
		}
	}
	sort.SliceStable(outs, func(i, j int) bool { return checkOutputLess(outs[i], outs[j]) })
	lines := make([]string, len(outs))
	for i, o := range outs {
		lines[i] = fmt.Sprintf("after the drain: output p%d o%d visible, from %s txn %d (src %s)",
			o.Partition, o.Offset, o.Worker, o.Txn, o.Src)
	}
	return lines
}

// at writes a time as the offset from the history's first event.
func (s *checkState) at(ts int64) string {
	return fmt.Sprintf("+%.6fs", float64(ts-s.firstTS)/1e9)
}

// faultAt names the newest fault that fired at or before ts: the fault
// active when the example's last step happened.
func (s *checkState) faultAt(ts int64) string {
	if ts == 0 {
		return ""
	}
	var found *FaultFiring
	for i := range s.faults {
		if s.faults[i].At.UnixNano() <= ts {
			found = &s.faults[i]
		}
	}
	if found == nil {
		return ""
	}
	f := found.Name
	if found.Point != "" {
		f += " at " + found.Point
	}
	return fmt.Sprintf("%s (fired by %s at %s)", f, found.Worker, s.at(found.At.UnixNano()))
}

// checkList writes up to five ids, then how many more.
func checkList(ids []string) string {
	const show = 5
	if len(ids) <= show {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:show], ", "), len(ids)-show)
}
