package ctp

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// CheckResult is the checker's judgement of one cell: the verdict, the counts
// of CONTRACT.md and every anomaly found (allowed ones included, so reports
// show what was tolerated).
type CheckResult struct {
	Verdict verdict.Verdict
	// Reason says why for UNKNOWN and N/A, and which anomalies were not
	// allowed for ANOMALY; empty for PASS.
	Reason string
	Counts verdict.Counts
	// Anomalies holds every anomaly kind with a non-zero count (unseen
	// included), each with up to verdict.MaxExamples examples sorted by record.
	Anomalies map[string]verdict.Found
	// Allowed is the cell's allowed anomalies, sorted (result.json "allowed").
	Allowed []string
	// Disallowed lists, sorted, the found anomalies that made the cell ANOMALY.
	Disallowed []string
	// Faults are the fault-fired events of the histories, oldest first.
	Faults []FaultFiring
	// HistoryStart is the wall clock of the first history event: the
	// examples' step times ("+1.250000s") count from it.
	HistoryStart time.Time
}

// FaultFiring is one fault-fired event.
type FaultFiring struct {
	Name   string
	Point  string
	Worker string
	At     time.Time
}

// Check judges one cell from what it observed, against what its mode allows.
// It never panics: a checker that crashes cannot say the cell held, so a panic
// becomes UNKNOWN with the panic as the reason (Jepsen: a crashing checker is
// unknown, never valid).
func Check(obs Observation, allowed Allowed) CheckResult {
	return checkRecovering(func() CheckResult { return checkObservation(obs, allowed) })
}

// checkRecovering runs check and turns a panic into UNKNOWN.
func checkRecovering(check func() CheckResult) (res CheckResult) {
	defer func() {
		if p := recover(); p != nil {
			res = CheckResult{
				Verdict: verdict.Unknown,
				Reason:  fmt.Sprintf("checker panicked: %v", p),
			}
		}
	}()
	return check()
}

func checkObservation(obs Observation, allowed Allowed) CheckResult {
	s := newCheckState(obs)
	res := CheckResult{
		Counts:    s.counts(),
		Anomalies: s.anomalies(),
		Allowed:   allowed.Names(),
		Faults:    s.faults,
	}
	if len(obs.History) > 0 {
		res.HistoryStart = time.Unix(0, s.firstTS).UTC()
	}
	res.Verdict, res.Reason, res.Disallowed = judge(res, allowed, s)
	return res
}

// judge turns counts into a verdict: N/A for a cell that does not apply;
// ANOMALY for any anomaly the cell does not allow; UNKNOWN when the cell
// cannot show either way (unseen ids, no input at all); PASS otherwise.
func judge(res CheckResult, allowed Allowed, s *checkState) (verdict.Verdict, string, []string) {
	if allowed.NotApplicable != "" {
		return verdict.NA, allowed.NotApplicable, nil
	}
	var disallowed []string
	for name := range res.Anomalies {
		// Unseen is liveness, judged below: it can only make a cell UNKNOWN.
		if name != verdict.AnomalyUnseen && !allowed.Allows(name) {
			disallowed = append(disallowed, name)
		}
	}
	sort.Strings(disallowed)
	if len(disallowed) > 0 {
		parts := make([]string, len(disallowed))
		for i, name := range disallowed {
			parts[i] = fmt.Sprintf("%s %d", name, res.Anomalies[name].Count)
		}
		return verdict.Anomaly, "not allowed in this mode: " + strings.Join(parts, ", "), disallowed
	}
	if res.Counts.Input == 0 {
		return verdict.Unknown, "no input record was observed: nothing to judge", nil
	}
	if res.Counts.Unseen > 0 {
		reason := fmt.Sprintf("%d of %d input ids unseen: no committed output and the share "+
			"group was not done with them when the drain ended (liveness, not safety)",
			res.Counts.Unseen, res.Counts.Input)
		if len(s.unknownStart) > 0 {
			reason += fmt.Sprintf("; share start offset unknown for input partitions %v", s.unknownStart)
		}
		return verdict.Unknown, reason, nil
	}
	return verdict.Pass, "", nil
}
