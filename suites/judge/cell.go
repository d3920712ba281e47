package judge

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// Cell judges one observed cell: the checker's verdict, then the run's
// own quality (CONTRACT.md): a fault that never fired, or fired on an idle
// loop, tested nothing, so such a cell is UNKNOWN, never PASS. Live runs and
// re-checks call it alike. A verdict already set (HARNESS-ERROR, an
// interruption) is kept; the counts and anomalies are still filled in.
// conds are what the cell ran under that its row's evidence depends on (the
// reference broker's pending-lock policy, the lock): a live run's options, or
// a stored run's config (runConditions).
func Cell(cell *result.Cell, obs ctp.Observation, s scenarios.Scenario, conds scenarios.Conditions) {
	allowed := s.Allowed(obs.Mode)
	res := check.Run(obs, allowed)
	cell.Counts = res.Counts
	cell.Anomalies = res.Anomalies
	if cell.Anomalies == nil {
		cell.Anomalies = map[string]verdict.Found{}
	}
	if cell.Verdict == "" {
		cell.Verdict, cell.Reason = res.Verdict, res.Reason
	}
	if note := memberTagsNote(obs.History); note != "" && !slices.Contains(cell.Notes, note) {
		cell.Notes = append(cell.Notes, note)
	}
	noteShareStart(cell, obs)
	if s.HasFault() {
		cell.Fault.Fired, cell.Fault.Times = false, nil
		for _, e := range obs.History {
			if e.F == history.FFaultFired {
				cell.Fault.Fired = true
				cell.Fault.Times = append(cell.Fault.Times, time.Unix(0, e.TS).UTC())
			}
		}
	}
	if cell.Verdict != verdict.Pass {
		return
	}
	if s.HasFault() && !cell.Fault.Fired {
		cell.Verdict = verdict.Unknown
		cell.Reason = "the fault " + cell.Fault.Name + " never fired, so the cell tested nothing"
		switch prep, began := lastPreparation(obs.History); {
		case began && prep != "":
			// The fault began (its preparation is on the timeline) and
			// said why it did not act: that is the reason, not the trigger.
			cell.Reason += " (it began, and its last preparation says: " + prep + ")"
		case began:
			cell.Reason += " (it began, prepared, and the cell ended before it could act)"
		case s.Cluster != nil:
			// A cluster fault waits for part of the input to be done; a
			// small cell on a fast cluster can drain before it looks.
			cell.Reason += " (the cell drained before the fault's trigger came: more --records give it time)"
		}
		return
	}
	notes, missing := scenarios.Show(s.EvidenceFor(obs.Mode, obs.Realization, conds), obs.History, conds)
	cell.Notes = append(cell.Notes, notes...)
	if missing != nil {
		cell.Verdict = verdict.Unknown
		cell.Reason = "the history does not show " + missing.Name + ": " + missing.Missing
		return
	}
	if kept := s.ExpectFor(obs.Mode).KeptBy; kept != "" && obs.Mode == ctp.Transactional && obs.Realization == kip1289.RealizationLedger {
		cell.Notes = append(cell.Notes, "exactly once here is kept by "+kept)
	}
	if s.Cluster == nil || s.Cluster.AfterLoad == 0 {
		return
	}
	if n := commitsBefore(obs.History, cell.Fault.Times[0]); n < minCommitsBeforeFault {
		cell.Verdict = verdict.Unknown
		cell.Reason = fmt.Sprintf("the fault fired on an idle loop: %d committed transactions before it, want at least %d (a fault on an idle system tests nothing)",
			n, minCommitsBeforeFault)
		return
	}
	// The input past the trigger is held back and written at the trigger,
	// before the fault acts (held_input.go): a fault whose action takes
	// longer than the rest of the load fires after the load, with a commit
	// before it all the same. Only work begun after the firing met it.
	if !txnBegunAfter(obs.History, cell.Fault.Times[0]) {
		cell.Verdict = verdict.Unknown
		cell.Reason = fmt.Sprintf("the fault fired after the load: no transaction began after its first firing at %s (every one began before it), so nothing ran under the fault",
			cell.Fault.Times[0].Format(time.RFC3339Nano))
	}
}

// txnBegunAfter reports whether any worker began a transaction (begin ok)
// after t.
func txnBegunAfter(h history.History, t time.Time) bool {
	for _, e := range h {
		if e.TS > t.UnixNano() && e.F == history.FBegin && e.Type == history.OK {
			return true
		}
	}
	return false
}

// minCommitsBeforeFault is the load a cluster fault that waits for load must
// have met when it fired (etcd's traffic check): a fault on an idle system
// tests nothing. It must also meet work after it: a transaction begun after
// its first firing (txnBegunAfter). Worker faults are under load by construction (they fire
// inside a non-empty batch), and a fault that waits for its own moment (case
// 4 waits for a held commit) is judged by what it waited for.
const minCommitsBeforeFault = 1

// commitsBefore counts the transactions committed before t.
func commitsBefore(h history.History, t time.Time) int {
	n := 0
	for _, e := range h {
		if e.TS >= t.UnixNano() {
			break
		}
		if e.F == history.FCommit && e.Type == history.OK {
			n++
		}
	}
	return n
}

// lastPreparation is what a cluster fault that did not fire last said of
// itself: its last fault-prepare event's "why" (or its action), and whether
// it prepared anything at all.
func lastPreparation(h history.History) (why string, began bool) {
	for i := len(h) - 1; i >= 0; i-- {
		if e := h[i]; e.F == history.FFaultPrepare {
			if w := e.Attrs["why"]; w != "" {
				return w, true
			}
			return "", true
		}
	}
	return "", false
}
