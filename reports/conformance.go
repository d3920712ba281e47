package reports

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/conformancekit"
)

// WriteConformance writes a KIP-1289 conformance kit run into dir:
// conformance.json (every case with the requests it sent and the answers),
// summary.md for people and junit.xml for CI (a case per testcase, N/A as
// skipped, every other verdict but PASS as a failure). Each file is written
// atomically (writeFile).
func WriteConformance(dir string, rep conformancekit.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return errors.Join(
		writeFile(dir, "conformance.json", func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}),
		writeFile(dir, SummaryFile, func(w io.Writer) error { _, err := io.WriteString(w, conformanceSummary(rep)); return err }),
		writeFile(dir, JUnitFile, func(w io.Writer) error {
			x, err := conformanceJUnit(rep)
			if err == nil {
				_, err = w.Write(x)
			}
			return err
		}),
	)
}

func conformanceSummary(rep conformancekit.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sharechaos conformance: %s\n\n", rep.Verdict)
	fmt.Fprintf(&b, "**%s**: %s (exit code %d).\n\n", rep.Verdict, conformanceWords(rep.Verdict), rep.ExitCode)
	fmt.Fprintf(&b, "KIP-1289 conformance kit against %s (backend %s", rep.Broker, rep.Backend)
	if rep.Kind != "" {
		fmt.Fprintf(&b, ", implementation %s", rep.Kind)
	}
	fmt.Fprintf(&b, "), %d cases in %s.", len(rep.Cases), (time.Duration(rep.DurationS * float64(time.Second))).Round(time.Second))
	if rep.Interrupted {
		b.WriteString(" **Interrupted**: the cases after the last one listed did not run.")
	}
	b.WriteString(" docs/CONFORMANCE.md says what each case pins down.\n\n")
	counts := map[verdict.Verdict]int{}
	for _, c := range rep.Cases {
		counts[c.Verdict]++
	}
	var parts []string
	for _, v := range verdict.All() {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	fmt.Fprintf(&b, "%s.\n\n", strings.Join(parts, ", "))
	b.WriteString("| case | verdict | settings | took | why |\n|---|---|---|---|---|\n")
	for _, c := range rep.Cases {
		why := c.Reason
		if c.Differs != "" && c.Verdict == verdict.Pass {
			why = "differs between implementations, asserted per implementation: " + c.Differs
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.1fs | %s |\n", c.Name, c.Verdict, c.Settings, c.DurationS, mdCell(why))
	}
	for _, c := range rep.Cases {
		if c.Verdict == verdict.Pass || c.Verdict == verdict.NA || len(c.Exchanges) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s: %s\n\n%s\n\nWhat the case sent and what the broker answered:\n\n", c.Name, c.Verdict, c.Reason)
		for _, x := range c.Exchanges {
			fmt.Fprintf(&b, "- %s\n  - answer: %s\n", x.Request, x.Answer)
		}
	}
	return b.String()
}

func conformanceWords(v verdict.Verdict) string {
	switch v {
	case verdict.Pass:
		return "every case that could run held"
	case verdict.Anomaly:
		return "the broker did not do what a case pins down"
	}
	return v.Words()
}

func mdCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

func conformanceJUnit(rep conformancekit.Report) ([]byte, error) {
	suite := junitSuite{Name: "sharechaos-conformance", Time: fmt.Sprintf("%.3f", rep.DurationS),
		Timestamp: rep.Started.UTC().Format(time.RFC3339),
		Properties: []junitProperty{{Name: "verdict", Value: string(rep.Verdict)}, {Name: "broker", Value: rep.Broker},
			{Name: "backend", Value: rep.Backend}, {Name: "implementation", Value: string(rep.Kind)}}}
	for _, c := range rep.Cases {
		tc := junitCase{Name: c.Name, ClassName: "sharechaos.conformance", Time: fmt.Sprintf("%.3f", c.DurationS)}
		var out strings.Builder
		for _, x := range c.Exchanges {
			fmt.Fprintf(&out, "%s\n  -> %s\n", x.Request, x.Answer)
		}
		tc.SystemOut = out.String()
		switch c.Verdict {
		case verdict.Pass:
		case verdict.NA:
			tc.Skipped = &junitSkipped{Message: c.Reason}
			suite.Skipped++
		default:
			tc.Failure = &junitFailure{Type: strings.ToLower(string(c.Verdict)), Message: string(c.Verdict) + ": " + c.Reason}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: "sharechaos-conformance", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped,
		Time: suite.Time, Suites: []junitSuite{suite}}
	x, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), x...), '\n'), nil
}
