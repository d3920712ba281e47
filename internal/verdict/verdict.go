// Package verdict holds the words every part of the suite judges with:
// verdicts, their order and exit codes (CONTRACT.md), the counts of a cell and
// the anomalies with their minimal examples.
package verdict

// Verdict is the judgement of a cell or of a whole run.
type Verdict string

const (
	Pass            Verdict = "PASS"
	Anomaly         Verdict = "ANOMALY"
	Unknown         Verdict = "UNKNOWN"
	NA              Verdict = "N/A"
	HarnessError    Verdict = "HARNESS-ERROR"
	ThresholdFailed Verdict = "THRESHOLD-FAILED"
)

// Exit codes of CONTRACT.md.
const (
	ExitPass            = 0
	ExitAnomaly         = 1
	ExitUnknown         = 2
	ExitThresholdFailed = 3
	ExitHarnessError    = 4
	ExitUsage           = 64
)

// All lists every verdict word, best first.
func All() []Verdict { return []Verdict{Pass, NA, Unknown, ThresholdFailed, Anomaly, HarnessError} }

// Known reports whether v is one of the contract's verdict words.
func (v Verdict) Known() bool {
	for _, k := range All() {
		if v == k {
			return true
		}
	}
	return false
}

// rank orders verdicts worst-last for Worst. N/A ranks below PASS: it never
// makes a run worse. THRESHOLD-FAILED sits between UNKNOWN and ANOMALY: it
// applies "unless the verdict is already worse", and ANOMALY / HARNESS-ERROR are.
func rank(v Verdict) int {
	switch v {
	case NA:
		return 0
	case Pass:
		return 1
	case Unknown:
		return 2
	case ThresholdFailed:
		return 3
	case Anomaly:
		return 4
	case HarnessError:
		return 5
	}
	return 5 // an unknown word is the harness's fault
}

// Worst returns the worst of vs; PASS when vs is empty or all N/A.
func Worst(vs ...Verdict) Verdict {
	w := Pass
	for _, v := range vs {
		if v == NA {
			continue
		}
		if rank(v) > rank(w) {
			w = v
		}
	}
	return w
}

// ExitCode maps a run verdict to the process exit code.
func (v Verdict) ExitCode() int {
	switch v {
	case Pass, NA:
		return ExitPass
	case Anomaly:
		return ExitAnomaly
	case Unknown:
		return ExitUnknown
	case ThresholdFailed:
		return ExitThresholdFailed
	}
	return ExitHarnessError
}

// Words says a verdict in a sentence for people.
func (v Verdict) Words() string {
	switch v {
	case Pass:
		return "held: everything this mode must guarantee was observed"
	case Anomaly:
		return "broke: something this mode does not allow happened"
	case Unknown:
		return "undecided: the run could not show either way"
	case NA:
		return "not applicable on this backend"
	case HarnessError:
		return "the suite itself failed"
	case ThresholdFailed:
		return "a performance threshold failed"
	}
	return string(v)
}
