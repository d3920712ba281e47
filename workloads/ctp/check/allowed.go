package check

import "sort"

// Allowed is what one cell tolerates: the anomalies its ack mode allows in its
// scenario (ORACLE.md), or why the cell does not apply at all. Anything the
// checker finds that is not listed here makes the cell ANOMALY.
//
// Unseen is never allowed: it is liveness, not safety, and makes a cell
// UNKNOWN, never PASS (CONTRACT.md "Verdicts").
type Allowed struct {
	// Anomalies maps an anomaly name (verdict.Anomaly*) to why this cell
	// allows it, in ORACLE.md's words.
	Anomalies map[string]string
	// NotApplicable, when set, says why the cell is N/A (ORACLE.md "n/a": a
	// crash point that does not exist in this mode). Such a cell is reported
	// as N/A, never as PASS.
	NotApplicable string
}

// Allows reports whether the cell tolerates the anomaly.
func (a Allowed) Allows(anomaly string) bool {
	_, ok := a.Anomalies[anomaly]
	return ok
}

// Names lists the allowed anomalies, sorted: result.json's "allowed".
func (a Allowed) Names() []string {
	names := make([]string, 0, len(a.Anomalies))
	for n := range a.Anomalies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
