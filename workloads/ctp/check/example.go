package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// maxSteps bounds the steps of one example: a record that went round
// ten times would otherwise bury the story. The first and last steps stay.
const maxSteps = 24

// examples turns the merged findings into verdict.Found, filling every
// example's steps from one pass over the history. A panic while writing the
// steps leaves the examples without steps and says so in failed: the
// verdict does not depend on them.
func (s *state) examples(merged map[string]*finding) (found map[string]verdict.Found, failed string) {
	found = make(map[string]verdict.Found, len(merged))
	var steps map[string]stepList
	func() {
		defer func() {
			if r := recover(); r != nil {
				steps, failed = nil, fmt.Sprintf("checker examples panicked: %v", r)
			}
		}()
		steps = s.exampleSteps(merged)
	}()
	for kind, f := range merged {
		if f.count == 0 {
			continue
		}
		out := verdict.Found{Count: f.count}
		if len(f.causes) > 0 {
			out.Causes = make(map[string]int, len(f.causes))
			for c, n := range f.causes {
				out.Causes[c] = n
			}
		}
		for _, d := range f.drafts {
			ex := verdict.Example{Record: d.record, Summary: d.summary, Cause: d.cause}
			if steps != nil {
				st := steps[d.record]
				ex.Steps = append(st.texts(), s.outputLines(d.record)...)
				ex.Fault = s.faultAt(st.last)
			}
			out.Examples = append(out.Examples, ex)
		}
		found[kind] = out
	}
	return found, failed
}

// stepList are one example's events, oldest first.
type stepList struct {
	lines []string
	last  int64 // time of the newest step, 0 if none
}

func (st stepList) texts() []string {
	if len(st.lines) <= maxSteps {
		return append([]string(nil), st.lines...)
	}
	head := maxSteps / 2
	tail := maxSteps - head - 1
	out := append([]string(nil), st.lines[:head]...)
	out = append(out, fmt.Sprintf("... %d steps left out ...", len(st.lines)-head-tail))
	return append(out, st.lines[len(st.lines)-tail:]...)
}

// exampleSteps collects, for every example record, the events that matter:
// those that name the record (polls, sends, acks, commits with its batch),
// the outcome events of the transactions that held it, and the fault-fired
// events of the workers that touched it. Two passes: the first finds those
// transactions and workers, the second writes the steps in history order.
func (s *state) exampleSteps(merged map[string]*finding) map[string]stepList {
	want := make(map[string]bool)
	for _, f := range merged {
		for _, d := range f.drafts {
			want[d.record] = true
		}
	}
	steps := make(map[string]stepList)
	if len(want) == 0 {
		return steps
	}
	txnsOf := make(map[txnRef]map[string]bool)
	workersOf := make(map[string]map[string]bool)
	for _, e := range s.obs.History {
		for _, id := range touched(e, want) {
			if workersOf[e.Worker] == nil {
				workersOf[e.Worker] = make(map[string]bool)
			}
			workersOf[e.Worker][id] = true
			if e.Txn != 0 {
				t := txnRef{e.Worker, e.Txn}
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
		if !isStep(e) {
			continue
		}
		ids := touched(e, want)
		also := func(related map[string]bool) {
			for id := range related {
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
		if e.Txn != 0 && txnStep(e) {
			also(txnsOf[txnRef{e.Worker, e.Txn}])
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

// isStep reports whether an event that names an example's record is a
// step of it. Invokes are left out (their completion follows) except a
// commit's, which dates a commit that never completed, and an abort's, which
// says why.
func isStep(e history.Event) bool {
	return e.Type != history.Invoke || e.F == history.FCommit || e.F == history.FAbort
}

// txnStep reports whether a transaction-level event belongs in the
// example of every record the transaction held.
func txnStep(e history.Event) bool {
	if !isStep(e) {
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

// touched returns the wanted ids that e names, each once.
func touched(e history.Event, want map[string]bool) []string {
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
func (s *state) describe(e history.Event, id string) string {
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
func (s *state) outputLines(id string) []string {
	var outs []ctp.Output
	for _, o := range s.obs.Outputs {
		if o.Key == id {
			outs = append(outs, o)
		}
	}
	sort.SliceStable(outs, func(i, j int) bool { return outputLess(outs[i], outs[j]) })
	lines := make([]string, len(outs))
	for i, o := range outs {
		lines[i] = fmt.Sprintf("after the drain: output p%d o%d visible, from %s txn %d (src %s)",
			o.Partition, o.Offset, o.Worker, o.Txn, o.Src)
	}
	return lines
}

// at writes a time as the offset from the history's first event.
func (s *state) at(ts int64) string {
	return fmt.Sprintf("+%.6fs", float64(ts-s.firstTS)/1e9)
}

// faultAt names the newest fault that fired at or before ts: the fault
// active when the example's last step happened.
func (s *state) faultAt(ts int64) string {
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

// listIDs writes up to five ids, then how many more.
func listIDs(ids []string) string {
	const show = 5
	if len(ids) <= show {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:show], ", "), len(ids)-show)
}
