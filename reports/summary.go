package reports

import (
	"bufio"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// WriteSummary writes summary.md, the page a person reads first: the run's
// verdict in words, seed, backend and why, a table cell by cell, why each cell
// that did not pass did not, every anomaly with its minimal examples, and the
// command that replays the run.
func WriteSummary(w io.Writer, r result.Result) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }

	p("# sharechaos run: %s\n\n", r.Verdict)
	p("**%s**: %s (exit code %d).\n\n", r.Verdict, r.Verdict.Words(), r.ExitCode)
	p("%s\n\n", verdictTally(r.Runs))
	if r.Interrupted {
		p("> **Interrupted**: the run was stopped before it ended; what follows is what was recorded until then.\n\n")
	}
	p("| | |\n|---|---|\n")
	p("| seed | %d |\n", r.Seed)
	p("| backend | %s |\n", md(backendWords(r.Backend, r.BackendWhy)))
	writeClusterRows(bw, r)
	if !r.Started.IsZero() {
		p("| started | %s |\n", r.Started.Format(time.RFC3339))
	}
	p("| duration | %s |\n", seconds(r.DurationS))
	p("| replay | `%s` |\n\n", ReplayCommand(r))

	p("## Cells\n\n")
	if len(r.Runs) == 0 {
		p("No cell ran.\n\n")
	} else {
		writeCellTable(bw, r.Runs)
	}
	writeDimensions(bw, r)

	if why := cellsWithReasons(r.Runs); len(why) > 0 {
		p("## Why\n\n")
		for _, c := range why {
			p("- **%s** %s: %s\n", md(cellLabel(c, r.Runs)), c.Verdict, md(reasonWords(c.Reason)))
		}
		p("\n")
	}

	if len(r.Thresholds) > 0 {
		p("## Thresholds\n\n")
		writeThresholdTable(bw, r.Thresholds)
	}

	writeAnomalies(bw, r.Runs)
	writeLatencyTable(bw, r.Runs)
	writeSoakTimelines(bw, r.Runs)
	writeFlakeTable(bw, r.Runs)
	writePhaseTable(bw, r)

	var notes []string
	for _, c := range r.Runs {
		for _, n := range c.Notes {
			notes = append(notes, fmt.Sprintf("%s: %s", cellLabel(c, r.Runs), n))
		}
	}
	if len(notes) > 0 {
		p("## Notes\n\n")
		for _, n := range notes {
			p("- %s\n", md(n))
		}
		p("\n")
	}

	p("## Replay\n\n```sh\n%s\n```\n\n", ReplayCommand(r))
	if len(r.Config) > 0 {
		p("## Settings\n\n| setting | value |\n|---|---|\n")
		for _, k := range slices.Sorted(maps.Keys(r.Config)) {
			p("| %s | %s |\n", md(k), md(r.Config[k]))
		}
		p("\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// writeClusterRows writes the cluster's rows of the header table: each
// release's, prefixed with it, in a run over releases.
func writeClusterRows(w io.Writer, r result.Result) {
	if len(r.Clusters) > 1 {
		for _, c := range r.Clusters {
			for _, row := range c.Rows() {
				fmt.Fprintf(w, "| %s: %s | %s |\n", md(c.Release), row[0], md(row[1]))
			}
		}
		return
	}
	for _, row := range r.Cluster.Rows() {
		fmt.Fprintf(w, "| %s | %s |\n", row[0], md(row[1]))
	}
}

func writeCellTable(w io.Writer, cells []result.Cell) {
	repeats := hasRepeats(cells)
	head := "| scenario | mode | backend | realization |"
	sep := "|---|---|---|---|"
	clients := len(result.Clients.Values(cells)) > 1
	if clients {
		head += " client |"
		sep += "---|"
	}
	versions := len(result.Releases.Values(cells)) > 0
	if versions {
		head += " kafka |"
		sep += "---|"
	}
	if repeats {
		head += " repeat |"
		sep += "---:|"
	}
	head += " verdict | input | processed | duplicated | extra outputs | lost | archived | unseen | aborted reads | torn txns | phantoms | commit p50 / p99 ms | fault | allowed anomalies |\n"
	sep += "---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n"
	fmt.Fprint(w, head, sep)
	for _, c := range cells {
		row := fmt.Sprintf("| %s | %s | %s | %s |", md(c.Scenario), md(c.Mode), md(c.Backend), md(dash(c.Realization)))
		if clients {
			row += fmt.Sprintf(" %s |", md(result.ClientOf(c)))
		}
		if versions {
			row += fmt.Sprintf(" %s |", md(dash(c.KafkaVersion)))
		}
		if repeats {
			row += fmt.Sprintf(" %d |", c.Repeat)
		}
		if c.Verdict == verdict.NA {
			// Nothing ran: counts of zero would read as "nothing lost".
			row += fmt.Sprintf(" %s | | | | | | | | | | | | %s | %s |\n", c.Verdict, md(faultWords(c.Fault)), md(allowedWords(c.Allowed)))
			fmt.Fprint(w, row)
			continue
		}
		n := c.Counts
		row += fmt.Sprintf(" %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s / %s | %s | %s |\n",
			c.Verdict, n.Input, n.Processed, n.Duplicated, n.ExtraOutputs, n.Lost, n.Archived, n.Unseen,
			n.AbortedReads, n.TornTxns, n.Phantoms, msWords(c.CommitP50Ms), msWords(c.CommitP99Ms),
			md(faultWords(c.Fault)), md(allowedWords(c.Allowed)))
		fmt.Fprint(w, row)
	}
	fmt.Fprintln(w)
}

func writeAnomalies(w io.Writer, cells []result.Cell) {
	any := false
	for _, c := range cells {
		if len(c.Anomalies) > 0 {
			any = true
		}
	}
	if !any {
		return
	}
	fmt.Fprint(w, "## Anomalies\n\n")
	for _, c := range cells {
		for _, name := range slices.Sorted(maps.Keys(c.Anomalies)) {
			found := c.Anomalies[name]
			fmt.Fprintf(w, "### %s: %s × %d (%s)\n\n", md(cellLabel(c, cells)), name, found.Count, allowedOrNot(name, c.Allowed))
			if len(found.Examples) == 0 {
				fmt.Fprint(w, "No example kept.\n\n")
			}
			for i, ex := range found.Examples {
				fmt.Fprintf(w, "%d. record `%s`: %s\n", i+1, ex.Record, md(ex.Summary))
				if ex.Fault != "" {
					fmt.Fprintf(w, "   fault then: %s\n", md(ex.Fault))
				}
				if len(ex.Steps) > 0 {
					fmt.Fprint(w, "\n   ```\n")
					for _, s := range ex.Steps {
						fmt.Fprintf(w, "   %s\n", strings.ReplaceAll(s, "\n", " "))
					}
					fmt.Fprint(w, "   ```\n")
				}
				fmt.Fprintln(w)
			}
		}
	}
}

func writeLatencyTable(w io.Writer, cells []result.Cell) {
	any := false
	for _, c := range cells {
		if len(c.Latency) > 0 {
			any = true
		}
	}
	if !any {
		return
	}
	fmt.Fprint(w, "## Latency (ms)\n\n| cell | metric | count | p50 | p90 | p99 | p99.9 | max |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cells {
		for _, m := range slices.Sorted(maps.Keys(c.Latency)) {
			l := c.Latency[m]
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s |\n", md(cellLabel(c, cells)), md(m), l.Count,
				msWords(l.P50), msWords(l.P90), msWords(l.P99), msWords(l.P999), msWords(l.Max))
		}
	}
	fmt.Fprintln(w)
}

func writeThresholdTable(w io.Writer, ts []result.ThresholdResult) {
	fmt.Fprint(w, "| threshold | scope | observed | result |\n|---|---|---:|---|\n")
	for _, t := range ts {
		res := "pass"
		if !t.Pass {
			res = "**FAILED**"
			if t.Reason != "" {
				res += ": " + md(t.Reason)
			}
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", strings.ReplaceAll(t.Threshold, "`", "'"), md(dash(t.Scope)),
			strconv.FormatFloat(t.Observed, 'f', -1, 64)+t.Unit, res)
	}
	fmt.Fprintln(w)
}

// ReplayCommand is the command that reruns r with its seed: the recorded
// command line with --seed added when it lacks one, or one built from the
// cells.
func ReplayCommand(r result.Result) string {
	seed := fmt.Sprintf("--seed %d", r.Seed)
	if r.Command != "" {
		if hasFlag(r.Command, "--seed") {
			return r.Command
		}
		return r.Command + " " + seed
	}
	var scen, modes []string
	for _, c := range r.Runs {
		if !slices.Contains(scen, c.Scenario) {
			scen = append(scen, c.Scenario)
		}
		if !slices.Contains(modes, c.Mode) {
			modes = append(modes, c.Mode)
		}
	}
	cmd := "sharechaos run"
	if r.Backend != "" {
		cmd += " --backend " + r.Backend
	}
	if len(scen) > 0 {
		cmd += " --scenario " + strings.Join(scen, ",")
	}
	if len(modes) > 0 {
		cmd += " --mode " + strings.Join(modes, ",")
	}
	return cmd + " " + seed
}

func hasFlag(cmd, flag string) bool {
	for _, f := range strings.Fields(cmd) {
		if f == flag || strings.HasPrefix(f, flag+"=") {
			return true
		}
	}
	return false
}

// verdictTally is "4 cells: 3 PASS, 1 N/A".
func verdictTally(cells []result.Cell) string {
	order := []verdict.Verdict{verdict.Pass, verdict.Anomaly, verdict.Unknown, verdict.HarnessError, verdict.NA}
	counts := map[verdict.Verdict]int{}
	for _, c := range cells {
		counts[c.Verdict]++
	}
	var parts []string
	for _, v := range order {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
			delete(counts, v)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
	}
	noun := "cells"
	if len(cells) == 1 {
		noun = "cell"
	}
	if len(parts) == 0 {
		return "0 cells."
	}
	return fmt.Sprintf("%d %s: %s.", len(cells), noun, strings.Join(parts, ", "))
}

func cellsWithReasons(cells []result.Cell) []result.Cell {
	// ANOMALY cells are explained by their anomalies; the other verdicts
	// that are not PASS need their reason said.
	var out []result.Cell
	for _, c := range cells {
		if c.Reason != "" || (c.Verdict != verdict.Pass && c.Verdict != verdict.Anomaly) {
			out = append(out, c)
		}
	}
	return out
}

// cellLabel is Name(), with "#repeat" when the run repeats cells.
func cellLabel(c result.Cell, all []result.Cell) string {
	if hasRepeats(all) {
		return c.ID()
	}
	return c.Name()
}

func hasRepeats(cells []result.Cell) bool {
	seen := map[string]bool{}
	for _, c := range cells {
		// Repeats count from 1; a cell of a later repeat says so even when
		// the run's report holds only some of its cells.
		if seen[c.Name()] || c.Repeat > 1 {
			return true
		}
		seen[c.Name()] = true
	}
	return false
}

func reasonWords(reason string) string {
	if reason == "" {
		return "no reason recorded"
	}
	return reason
}

func backendWords(backend, why string) string {
	if backend == "" {
		backend = "unknown"
	}
	if why == "" {
		return backend
	}
	return backend + ": " + why
}

func faultWords(f result.Fault) string {
	if f.Name == "" {
		return "none"
	}
	if f.Fired && len(f.Times) > 1 {
		return fmt.Sprintf("%s: fired %d times", f.Name, len(f.Times))
	}
	if f.Fired {
		return f.Name + ": fired"
	}
	return f.Name + ": did not fire"
}

func allowedWords(allowed []string) string {
	if len(allowed) == 0 {
		return "none"
	}
	return strings.Join(allowed, ", ")
}

func allowedOrNot(name string, allowed []string) string {
	if slices.Contains(allowed, name) {
		return "allowed in this mode"
	}
	return "NOT allowed in this mode"
}

func msWords(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func seconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(100 * time.Millisecond).String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// md makes text safe inside a Markdown table cell: no pipes, no line breaks.
func md(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", " ")
}
