package reports

import (
	"bufio"
	"fmt"
	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// benchTable is the comparison table of one metric at one batch size: a row
// per mode, the baseline first.
type benchTable struct {
	Metric string
	Batch  int
	// Point is the sweep point (link latency, partitions) when the bench
	// swept more than one; "" otherwise.
	Point string
	point string // always the runs' point, to select them
	Rows  []benchRow
}

// Title heads the table: "txn_total_duration, batch 10" and the sweep point.
func (t benchTable) Title() string {
	s := fmt.Sprintf("%s, batch %d", t.Metric, t.Batch)
	if t.Point != "" {
		s += " (" + t.Point + ")"
	}
	return s
}

type benchRow struct {
	Mode     string
	Baseline bool
	// Repeats that count (no error, values recorded).
	Repeats int
	// Medians over the repeats, ms and transactions per second.
	P50, P99, TxnPerSec float64
	// Against the baseline, per percentile; empty for the baseline row.
	Ratio50, Ratio99   string
	PValue50, PValue99 string
	Words              string
}

// benchTables builds the comparison tables from the runs and the comparisons:
// for each metric compared (txn_total_duration when none were) and each batch.
func benchTables(b result.Bench) []benchTable {
	metrics := []string{}
	for _, c := range b.Comparisons {
		if !slices.Contains(metrics, c.Metric) {
			metrics = append(metrics, c.Metric)
		}
	}
	if len(metrics) == 0 {
		metrics = []string{bench.TxnTotalDuration}
	}
	batches := slices.Clone(b.Batches)
	for _, r := range b.Runs {
		if !slices.Contains(batches, r.Batch) {
			batches = append(batches, r.Batch)
		}
	}
	slices.Sort(batches)
	// Sweep points (link latency, partitions) in the order they ran; a
	// bench that did not sweep has one, and its tables do not name it.
	var points []string
	for _, r := range b.Runs {
		if !slices.Contains(points, r.Point()) {
			points = append(points, r.Point())
		}
	}
	if len(points) == 0 {
		points = []string{""}
	}
	modes := benchModes(b)
	var out []benchTable
	for _, m := range metrics {
		for _, pt := range points {
			for _, batch := range batches {
				t := benchTable{Metric: m, Batch: batch, point: pt}
				if len(points) > 1 {
					t.Point = pt
				}
				for _, mode := range modes {
					row, ok := benchRowOf(b, m, t, mode)
					if ok {
						t.Rows = append(t.Rows, row)
					}
				}
				if len(t.Rows) > 0 {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// benchModes lists the mode labels, the baseline first, then as they ran.
func benchModes(b result.Bench) []string {
	var modes []string
	for _, r := range b.Runs {
		if l := r.Label(); !slices.Contains(modes, l) {
			modes = append(modes, l)
		}
	}
	sort.SliceStable(modes, func(i, j int) bool { return modes[i] == b.Baseline && modes[j] != b.Baseline })
	return modes
}

func benchRowOf(b result.Bench, metric string, t benchTable, mode string) (benchRow, bool) {
	batch := t.Batch
	row := benchRow{Mode: mode, Baseline: mode == b.Baseline}
	var p50, p99, tps []float64
	for _, r := range b.Runs {
		if r.Label() != mode || r.Batch != batch || r.Point() != t.point || r.Error != "" {
			continue
		}
		p, ok := r.Latency[metric]
		if !ok || p.Count == 0 {
			continue
		}
		p50, p99, tps = append(p50, p.P50), append(p99, p.P99), append(tps, r.TxnPerSec)
	}
	if len(p50) == 0 {
		return row, false
	}
	row.Repeats = len(p50)
	row.P50, row.P99, row.TxnPerSec = medianOf(p50), medianOf(p99), medianOf(tps)
	if row.Baseline {
		row.Words = "baseline"
		return row, true
	}
	var words []string
	for _, c := range b.Comparisons {
		if c.Metric != metric || c.Batch != batch || c.Point() != t.point || c.Candidate != mode {
			continue
		}
		ratio, pv := fmt.Sprintf("%.2fx", c.Ratio), formatP(c.P)
		if c.Ratio == 0 {
			ratio = "-"
		}
		switch c.Percentile {
		case "p50":
			row.Ratio50, row.PValue50 = ratio, pv
		case "p99":
			row.Ratio99, row.PValue99 = ratio, pv
		}
		words = append(words, c.Percentile+": "+c.Words)
	}
	if len(words) == 0 {
		words = []string{"not compared (no baseline at this batch size)"}
	}
	row.Words = strings.Join(words, "; ")
	return row, true
}

// formatP prints a p-value for people (same form as bench.FormatP).
func formatP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func rateWords(rate float64) string {
	if rate <= 0 {
		return "closed loop (as fast as possible)"
	}
	return strconv.FormatFloat(rate, 'f', -1, 64) + " transactions/s (open loop)"
}

// ratesWords says a bench's load: one rate, or the sweep's points.
func ratesWords(rates []float64) string {
	if len(rates) == 1 {
		return rateWords(rates[0])
	}
	var words []string
	for _, r := range rates {
		words = append(words, rateWords(r))
	}
	return "a sweep: " + strings.Join(words, ", ")
}

// WriteBenchSummary writes a bench run's summary.md: the verdict, how the
// numbers were made, then per metric and batch size the comparison table
// (p50/p99 per mode as the median of its repeats, ratio of medians against the
// baseline, p-value, verdict in words), the thresholds and every repeat.
func WriteBenchSummary(w io.Writer, b result.Bench) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("# sharechaos bench: %s\n\n", b.Verdict)
	p("**%s**: %s (exit code %d).\n\n", b.Verdict, b.Verdict.Words(), b.ExitCode)
	if b.Interrupted {
		p("> **Interrupted**: the bench was stopped before it ended; what follows is what was measured until then.\n\n")
	}
	p("| | |\n|---|---|\n")
	p("| seed | %d |\n", b.Seed)
	p("| backend | %s |\n", md(backendWords(b.Backend, b.BackendWhy)))
	for _, row := range b.Cluster.Rows() {
		p("| %s | %s |\n", row[0], md(row[1]))
	}
	if !b.Started.IsZero() {
		p("| started | %s |\n", b.Started.Format(time.RFC3339))
	}
	p("| duration | %s |\n", seconds(b.DurationS))
	p("| load | %s, %s per repeat |\n", ratesWords(b.Rates), seconds(b.RepeatDurationS))
	p("| repeats | %d per mode and batch size, modes interleaved |\n", b.Repeats)
	p("| modes | %s (baseline: %s) |\n", md(strings.Join(b.Modes, ", ")), md(b.Baseline))
	if b.HarnessOverhead > 0 {
		p("| harness overhead | %.2f (instrumented txn_total_duration p50 / a bare franz-go loop's) |\n", b.HarnessOverhead)
		if b.HarnessOverheadWhy != "" {
			p("| harness overhead, why | %s |\n", md(b.HarnessOverheadWhy))
		}
	}
	if b.Command != "" {
		p("| command | `%s` |\n", b.Command)
	}
	p("\n")
	p("Each comparison is a Mann-Whitney U test (two-sided, alpha %v) whose unit is one repeat: a mode's sample is the percentile of each of its repeats, so n = %d per mode. \"No significant difference\" means p >= alpha; with fewer than 4 repeats a side no difference can reach 0.05 at all, and the table says so. Ratios are of the medians over repeats.\n\n", b.Alpha, b.Repeats)

	writeCellTables(bw, b)

	tables := benchTables(b)
	if len(tables) == 0 {
		p("No repeat recorded any latency.\n\n")
	}
	for _, t := range tables {
		p("## %s\n\n", t.Title())
		p("| mode | repeats | p50 ms | p99 ms | txn/s | p50 vs %s | p50 p-value | p99 vs %s | p99 p-value | verdict |\n", md(b.Baseline), md(b.Baseline))
		p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, r := range t.Rows {
			name := md(r.Mode)
			if r.Baseline {
				name += " (baseline)"
			}
			p("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, r.Repeats, msWords(round3(r.P50)), msWords(round3(r.P99)),
				strconv.FormatFloat(round3(r.TxnPerSec), 'f', -1, 64),
				dash(r.Ratio50), dash(r.PValue50), dash(r.Ratio99), dash(r.PValue99), md(r.Words))
		}
		p("\n")
	}

	if len(b.Thresholds) > 0 {
		p("## Thresholds\n\n")
		writeThresholdTable(bw, b.Thresholds)
	}

	var warnings []string
	for _, c := range b.Comparisons {
		for _, w := range c.Warnings {
			s := fmt.Sprintf("%s batch %d %s %s: %s", c.Candidate, c.Batch, c.Metric, c.Percentile, w)
			if pt := c.Point(); pt != "" {
				s = fmt.Sprintf("%s batch %d (%s) %s %s: %s", c.Candidate, c.Batch, pt, c.Metric, c.Percentile, w)
			}
			if !slices.Contains(warnings, s) {
				warnings = append(warnings, s)
			}
		}
	}
	if len(warnings) > 0 || len(b.Notes) > 0 {
		p("## Notes\n\n")
		for _, n := range b.Notes {
			p("- %s\n", md(n))
		}
		for _, w := range warnings {
			p("- %s\n", md(w))
		}
		p("\n")
	}

	p("## Repeats\n\nIn the order they ran.\n\n")
	p("| # | mode | batch | repeat | txn/s | records/s | txn_total p50 / p99 ms | txn_commit p50 / p99 ms | dropped | error |\n")
	p("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for i, r := range b.Runs {
		tot, com := r.Latency[bench.TxnTotalDuration], r.Latency[bench.TxnCommitDuration]
		label := r.Label()
		if pt := r.Point(); pt != "" {
			label += " (" + pt + ")"
		}
		p("| %d | %s | %d | %d | %s | %s | %s / %s | %s / %s | %d | %s |\n", i+1, md(label), r.Batch, r.Repeat,
			strconv.FormatFloat(round3(r.TxnPerSec), 'f', -1, 64), strconv.FormatFloat(round3(r.RecordsPerSec), 'f', -1, 64),
			msWords(tot.P50), msWords(tot.P99), msWords(com.P50), msWords(com.P99), r.Counters[bench.DroppedIterations], md(dash(r.Error)))
	}
	p("\n")
	if len(b.Config) > 0 {
		p("## Settings\n\n| setting | value |\n|---|---|\n")
		for _, k := range slices.Sorted(maps.Keys(b.Config)) {
			p("| %s | %s |\n", md(k), md(b.Config[k]))
		}
		p("\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write bench summary: %w", err)
	}
	return nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// writeCellTables writes the floor and the load curves, when measured.
func writeCellTables(w io.Writer, b result.Bench) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	table := func(t cellTable) {
		p("| %s |\n|%s\n", strings.Join(t.Header, " | "), strings.Repeat("---|", len(t.Header)))
		for _, r := range t.Rows {
			cells := make([]string, len(r))
			for i, c := range r {
				cells[i] = md(c)
			}
			p("| %s |\n", strings.Join(cells, " | "))
		}
		p("\n")
		for _, w := range t.Words {
			p("- %s\n", md(w))
		}
		if len(t.Words) > 0 {
			p("\n")
		}
	}
	if len(b.Floors) > 0 {
		t := floorTable(b)
		p("## %s\n\nOne operation at a time on the bench's cluster, before the runs at each link latency: what a commit cannot go below.\n\n", t.Title)
		table(t)
	}
	if t, ok := attributionTable(b); ok {
		p("## %s\n\n%s\n\n", t.Title, attributionIntro(b))
		table(t)
	}
	if t, ok := brokerTable(b); ok {
		p("## %s\n\n%s\n\n", t.Title, brokerIntro())
		table(t)
	} else if why := brokerMissing(b); why != "" {
		p("## Where the brokers spend a transaction's time\n\nNot read: %s\n\n", md(why))
	}
	if len(b.Curves) > 0 {
		p("## Load curves\n\n%s\n\n", curvesIntro(b))
		for _, t := range curveTables(b) {
			p("### %s\n\n", t.Title)
			table(t)
		}
	}
}
