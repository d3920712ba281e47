package reports

import (
	"bufio"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"io"
	"strings"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// flakeRow is one cell across its repeats.
type flakeRow struct {
	name     string
	verdicts map[int]verdict.Verdict // repeat -> verdict
}

// Flaky reports whether the row's repeats disagree.
func (r flakeRow) flaky() bool {
	var first verdict.Verdict
	for _, v := range r.verdicts {
		if first == "" {
			first = v
		} else if v != first {
			return true
		}
	}
	return false
}

// flakeTable groups cells by name over their repeats, in first-seen order;
// it returns nil unless some cell ran more than once (--repeats N).
func flakeTable(runs []result.Cell) ([]flakeRow, int) {
	maxRepeat := 0
	idx := map[string]int{}
	var rows []flakeRow
	for _, c := range runs {
		i, ok := idx[c.Name()]
		if !ok {
			i = len(rows)
			idx[c.Name()] = i
			rows = append(rows, flakeRow{name: c.Name(), verdicts: map[int]verdict.Verdict{}})
		}
		rows[i].verdicts[c.Repeat] = c.Verdict
		maxRepeat = max(maxRepeat, c.Repeat)
	}
	if maxRepeat < 2 {
		return nil, 0
	}
	return rows, maxRepeat
}

// writeFlakeTable writes the summary's flake table: each cell's verdict per
// repeat, marked flaky where the repeats disagree.
func writeFlakeTable(w *bufio.Writer, runs []result.Cell) {
	rows, n := flakeTable(runs)
	if rows == nil {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	flaky := 0
	for _, r := range rows {
		if r.flaky() {
			flaky++
		}
	}
	p("## Repeats\n\n%d of %d cells flaky over %d repeats.\n\n| cell |", flaky, len(rows), n)
	for i := 1; i <= n; i++ {
		p(" %d |", i)
	}
	p(" |\n|---|%s---|\n", strings.Repeat("---|", n))
	for _, r := range rows {
		p("| %s |", md(r.name))
		for i := 1; i <= n; i++ {
			p(" %s |", r.verdicts[i])
		}
		if r.flaky() {
			p(" **flaky** |\n")
		} else {
			p(" |\n")
		}
	}
	p("\n")
}

// WriteFlakeText writes the flake table for a terminal's end summary; it
// writes nothing unless some cell ran more than once.
func WriteFlakeText(w io.Writer, runs []result.Cell) {
	rows, n := flakeTable(runs)
	if rows == nil {
		return
	}
	width := 4
	for _, r := range rows {
		width = max(width, len(r.name))
	}
	fmt.Fprintf(w, "\nrepeats (cell x repeat):\n%-*s", width, "cell")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(w, " %-8d", i)
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s", width, r.name)
		for i := 1; i <= n; i++ {
			v := string(r.verdicts[i])
			if v == "" {
				v = "-"
			}
			fmt.Fprintf(w, " %-8s", shortVerdict(v))
		}
		if r.flaky() {
			fmt.Fprint(w, " flaky")
		}
		fmt.Fprintln(w)
	}
}

// shortVerdict fits a verdict in the terminal table's columns.
func shortVerdict(v string) string {
	switch verdict.Verdict(v) {
	case verdict.HarnessError:
		return "HARNESS"
	case verdict.ThresholdFailed:
		return "THRESH"
	}
	return v
}
