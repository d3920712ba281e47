package reports

import (
	"fmt"
	"io"
	"slices"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
)

// writeVersions writes a run over Kafka releases side by side: a row per
// scenario and mode, a column per release with its verdict and commit p50,
// then each release's commit latency against the first release's (the U
// test over the cells' commits). Nothing for a run of one release.
func writeVersions(w io.Writer, r result.Result) {
	vs := releases(r.Runs)
	if len(vs) < 2 {
		return
	}
	fmt.Fprint(w, "## Kafka releases side by side\n\n| scenario | mode |")
	for _, v := range vs {
		fmt.Fprintf(w, " %s |", md(v))
	}
	fmt.Fprint(w, "\n|---|---|")
	for range vs {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	type row struct{ scenario, mode string }
	var rows []row
	at := map[row]map[string]result.Cell{}
	for _, c := range r.Runs {
		k := row{c.Scenario, modeWithRealization(c)}
		if at[k] == nil {
			at[k] = map[string]result.Cell{}
			rows = append(rows, k)
		}
		at[k][c.KafkaVersion] = c
	}
	for _, k := range rows {
		fmt.Fprintf(w, "| %s | %s |", md(k.scenario), md(dash(k.mode)))
		for _, v := range vs {
			c, ok := at[k][v]
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
	writeVersionComparisons(w, r.VersionComparisons)
}

func writeVersionComparisons(w io.Writer, cs []result.VersionComparison) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprint(w, "### Commit latency compared with the first release (Mann-Whitney U)\n\n")
	fmt.Fprint(w, "One cell's commits are a few dozen values of one run: a difference there says where to look; with `--repeats 4` or more each repeat is one value, as in the bench.\n\n")
	fmt.Fprint(w, "| scenario | mode | release | vs | median ms | baseline median ms | ratio | n | unit | result |\n|---|---|---|---|---:|---:|---:|---:|---|---|\n")
	for _, c := range cs {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.2f | %d+%d | %s | %s |\n", md(c.Scenario), md(c.Mode), md(c.Candidate),
			md(c.Baseline), msWords(c.CandidateMedianMs), msWords(c.BaselineMedianMs), c.Ratio, c.N1, c.N2, md(dash(c.Unit)), md(c.Words))
	}
	fmt.Fprintln(w)
}

// releases are the cells' Kafka releases in the order they first appear.
func releases(cells []result.Cell) []string {
	var vs []string
	for _, c := range cells {
		if c.KafkaVersion != "" && !slices.Contains(vs, c.KafkaVersion) {
			vs = append(vs, c.KafkaVersion)
		}
	}
	return vs
}

func modeWithRealization(c result.Cell) string {
	if c.Realization != "" {
		return c.Mode + "/" + c.Realization
	}
	return c.Mode
}
