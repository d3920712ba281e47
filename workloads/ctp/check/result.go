package check

import (
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// Result is the checker's judgement of one cell: the verdict, the counts of
// CONTRACT.md and every anomaly found (allowed ones included, so reports show
// what was tolerated).
type Result struct {
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
	// Parts is each sub-checker's own verdict, in the order they ran: which
	// part made the cell what it is.
	Parts []PartVerdict
	// Faults are the fault-fired events of the histories, oldest first.
	Faults []FaultFiring
	// HistoryStart is the wall clock of the first history event: the
	// examples' step times ("+1.250000s") count from it.
	HistoryStart time.Time
}

// PartVerdict is one sub-checker's verdict and why.
type PartVerdict struct {
	Name    string
	Verdict verdict.Verdict
	Reason  string
}

// FaultFiring is one fault-fired event.
type FaultFiring struct {
	Name  string
	Point string
	// Action is what the armed worker did (ctp.Action*: kill, stop, ...),
	// "" when the event does not say.
	Action string
	Worker string
	At     time.Time
	// until is when an action that lasts (a preparation's leader moves)
	// ended, in Unix nanoseconds; 0 for a firing, which lasts to the next
	// heal.
	until int64
}
