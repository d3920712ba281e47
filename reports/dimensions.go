package reports

import (
	"fmt"
	"io"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
)

// sideBySide is how the summary shows one plan dimension (result.Dimension):
// its section's title, its column's name, and the run's comparisons along it.
type sideBySide struct {
	dim result.Dimension
	// title heads the side-by-side table, heading the comparisons in
	// report.html; column names a value.
	title, heading, column string
	compared               string
	comparisons            func(result.Result) []result.Comparison
}

// dimensionViews are the dimensions the summary shows side by side.
var dimensionViews = []sideBySide{
	{dim: result.Releases, title: "Kafka releases side by side", heading: "Kafka releases compared", column: "release", compared: "the first release",
		comparisons: func(r result.Result) []result.Comparison { return r.VersionComparisons }},
	{dim: result.Clients, title: "Clients side by side", heading: "Clients compared", column: "client", compared: "the first client",
		comparisons: func(r result.Result) []result.Comparison { return r.ClientComparisons }},
}

// writeDimensions writes every dimension the run has two values on.
func writeDimensions(w io.Writer, r result.Result) {
	for _, v := range dimensionViews {
		v.write(w, r)
	}
}

// write shows a run over the dimension's values side by side: a row per
// scenario and mode (and where the cells sit on the other dimensions), a
// column per value with its verdict and commit p50, then each value's
// commit latency against the first value's (the U test over the cells'
// commits). Nothing for a run of one value.
func (v sideBySide) write(w io.Writer, r result.Result) {
	vs := v.dim.Values(r.Runs)
	if len(vs) < 2 {
		return
	}
	fmt.Fprintf(w, "## %s\n\n| scenario | mode |", v.title)
	for _, x := range vs {
		fmt.Fprintf(w, " %s |", md(x))
	}
	fmt.Fprint(w, "\n|---|---|")
	for range vs {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	type row struct{ scenario, mode, others string }
	var rows []row
	at := map[row]map[string]result.Cell{}
	for _, c := range r.Runs {
		k := row{c.Scenario, modeWithRealization(c), v.dim.Others(c)}
		if at[k] == nil {
			at[k] = map[string]result.Cell{}
			rows = append(rows, k)
		}
		at[k][v.dim.Of(c)] = c
	}
	for _, k := range rows {
		mode := k.mode
		if where := otherValues(v.dim, at[k]); where != "" {
			mode += " " + where
		}
		fmt.Fprintf(w, "| %s | %s |", md(k.scenario), md(dash(mode)))
		for _, x := range vs {
			c, ok := at[k][x]
			switch {
			case !ok:
				fmt.Fprint(w, " - |")
			case c.Verdict == verdict.NA || c.CommitP50Ms == 0:
				fmt.Fprintf(w, " %s |", c.Verdict)
			default:
				fmt.Fprintf(w, " %s (commit p50 %s ms) |", c.Verdict, msWords(c.CommitP50Ms))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	v.writeComparisons(w, v.comparisons(r))
}

// otherValues names where a row's cells sit on the other dimensions that
// vary ("@4.4.0" in a run over clients and releases), "" when none does.
func otherValues(d result.Dimension, cells map[string]result.Cell) string {
	for _, c := range cells {
		cmp := d.Within(result.Comparison{}, c)
		return comparedWhere(cmp)
	}
	return ""
}

// comparedWhere is a comparison's place on the other dimensions, in the
// cell name's spelling ("~java", "@4.4.0").
func comparedWhere(c result.Comparison) string {
	s := ""
	if c.Client != "" && c.Client != result.DefaultClient {
		s += "~" + c.Client
	}
	if c.KafkaVersion != "" {
		s += "@" + c.KafkaVersion
	}
	return s
}

func (v sideBySide) writeComparisons(w io.Writer, cs []result.Comparison) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "### Commit latency compared with %s (Mann-Whitney U)\n\n", v.compared)
	fmt.Fprint(w, "One cell's commits are a few dozen values of one run: a difference there says where to look; with `--repeats 4` or more each repeat is one value, as in the bench.\n\n")
	fmt.Fprintf(w, "| scenario | mode | %s | vs | median ms | baseline median ms | ratio | n | unit | result |\n|---|---|---|---|---:|---:|---:|---:|---|---|\n", v.column)
	for _, c := range cs {
		mode := c.Mode
		if where := comparedWhere(c); where != "" {
			mode += " " + where
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.2f | %d+%d | %s | %s |\n", md(c.Scenario), md(mode), md(c.Candidate),
			md(c.Baseline), msWords(c.CandidateMedianMs), msWords(c.BaselineMedianMs), c.Ratio, c.N1, c.N2, md(dash(c.Unit)), md(c.Words))
	}
	fmt.Fprintln(w)
}

func modeWithRealization(c result.Cell) string {
	if c.Realization != "" {
		return c.Mode + "/" + c.Realization
	}
	return c.Mode
}
