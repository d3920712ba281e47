package reports

import (
	"encoding/xml"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// WriteJUnit writes junit.xml for CI: one testsuite, one testcase per cell,
// named by Cell.Name() (Cell.ID() when the run repeats a cell, so names stay
// unique), and one testcase per threshold.
//
// Verdicts map as follows:
//   - PASS: passed.
//   - ANOMALY: <failure type="anomaly">, the anomalies the mode does not allow
//     in the message.
//   - HARNESS-ERROR: <failure type="harness-error">. JUnit's <error> would fit
//     too, but CI tools treat both alike and the brief asks for failure.
//   - UNKNOWN: <failure type="unknown">, not skipped: an undecided cell (a
//     fault that never fired, a drain that timed out) makes the run exit 2, and
//     a skipped test would hide that in CI's test view.
//   - N/A: <skipped>, with the reason: the cell cannot run on this backend.
//   - A failed threshold: <failure type="threshold">.
func WriteJUnit(w io.Writer, r result.Result) error {
	suite := junitSuite{
		Name:      "sharechaos",
		Timestamp: r.Started.UTC().Format(time.RFC3339),
		Time:      fmt.Sprintf("%.3f", r.DurationS),
		Properties: []junitProperty{
			{Name: "verdict", Value: string(r.Verdict)},
			{Name: "seed", Value: fmt.Sprint(r.Seed)},
			{Name: "backend", Value: backendWords(r.Backend, r.BackendWhy)},
			{Name: "replay", Value: ReplayCommand(r)},
		},
	}
	for _, row := range r.Cluster.Rows() {
		suite.Properties = append(suite.Properties, junitProperty{Name: strings.ReplaceAll(row[0], " ", "_"), Value: row[1]})
	}
	if r.Started.IsZero() {
		suite.Timestamp = ""
	}
	repeats := hasRepeats(r.Runs)
	for _, c := range r.Runs {
		tc := junitCase{
			Name:      c.Name(),
			ClassName: "sharechaos." + c.Scenario,
			Time:      fmt.Sprintf("%.3f", c.DurationS),
			SystemOut: cellText(c),
		}
		if repeats {
			tc.Name = c.ID()
		}
		switch c.Verdict {
		case verdict.Pass:
		case verdict.NA:
			tc.Skipped = &junitSkipped{Message: reasonWords(c.Reason)}
			suite.Skipped++
		case verdict.Anomaly:
			tc.Failure = &junitFailure{Type: "anomaly", Message: anomalyMessage(c), Text: anomalyDetail(c)}
			suite.Failures++
		case verdict.Unknown:
			tc.Failure = &junitFailure{Type: "unknown", Message: "UNKNOWN: " + reasonWords(c.Reason), Text: c.Verdict.Words()}
			suite.Failures++
		default: // HARNESS-ERROR and any word the suite does not know
			tc.Failure = &junitFailure{Type: "harness-error", Message: string(c.Verdict) + ": " + reasonWords(c.Reason), Text: c.Verdict.Words()}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	for _, t := range r.Thresholds {
		tc := junitCase{Name: "threshold " + t.Threshold, ClassName: "sharechaos.thresholds", Time: "0.000"}
		if t.Scope != "" {
			tc.Name += " [" + t.Scope + "]"
		}
		if !t.Pass {
			tc.Failure = &junitFailure{Type: "threshold", Message: t.Reason}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{
		Name: "sharechaos", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped,
		Time: suite.Time, Suites: []junitSuite{suite},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func anomalyMessage(c result.Cell) string {
	var bad, ok []string
	for _, name := range slices.Sorted(maps.Keys(c.Anomalies)) {
		s := fmt.Sprintf("%s ×%d", name, c.Anomalies[name].Count)
		if slices.Contains(c.Allowed, name) {
			ok = append(ok, s)
		} else {
			bad = append(bad, s)
		}
	}
	msg := "ANOMALY"
	if len(bad) > 0 {
		msg += ": not allowed: " + strings.Join(bad, ", ")
	}
	if len(ok) > 0 {
		msg += "; allowed: " + strings.Join(ok, ", ")
	}
	if c.Reason != "" {
		msg += "; " + c.Reason
	}
	return msg
}

func anomalyDetail(c result.Cell) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(c.Anomalies)) {
		f := c.Anomalies[name]
		fmt.Fprintf(&b, "%s ×%d (%s)\n", name, f.Count, allowedOrNot(name, c.Allowed))
		for _, ex := range f.Examples {
			fmt.Fprintf(&b, "  record %s: %s\n", ex.Record, ex.Summary)
			if ex.Fault != "" {
				fmt.Fprintf(&b, "    fault then: %s\n", ex.Fault)
			}
			for _, s := range ex.Steps {
				fmt.Fprintf(&b, "    %s\n", s)
			}
		}
	}
	return b.String()
}

// cellText is the cell's counts for <system-out>, one line a person can read.
func cellText(c result.Cell) string {
	n := c.Counts
	return fmt.Sprintf("verdict=%s input=%d processed=%d duplicated=%d extra_outputs=%d lost=%d archived=%d unseen=%d aborted_reads=%d torn_txns=%d phantoms=%d commit_p50_ms=%v commit_p99_ms=%v fault=%q allowed=%q",
		c.Verdict, n.Input, n.Processed, n.Duplicated, n.ExtraOutputs, n.Lost, n.Archived, n.Unseen, n.AbortedReads,
		n.TornTxns, n.Phantoms, c.CommitP50Ms, c.CommitP99Ms, faultWords(c.Fault), allowedWords(c.Allowed))
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}
