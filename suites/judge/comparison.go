package judge

import (
	"path/filepath"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
)

// Compare sets res's comparisons along every plan dimension (the releases,
// the clients) from the stored cells: a run and its re-check call it alike.
func Compare(dir string, res *result.Result) {
	res.VersionComparisons = CompareAlong(dir, res.Runs, result.Releases)
	res.ClientComparisons = CompareAlong(dir, res.Runs, result.Clients)
}

// CompareAlong compares each value's commit latency on the dimension (a
// release, a client) with the first value's (the run's order), per
// scenario and mode and wherever the cells sit on the other dimensions, by
// the U test, as the bench compares modes. With repeats (--repeats 2 or
// more) the unit is the repeat, as in the bench: one value per repeat, its
// cell's commit p50 (a cell's commits are not independent of each other;
// repeats are). Without, the sample of a cell is every commit its
// histories timed (txn_commit_duration), read from the run directory, so a
// re-check gets the same rows. Only cells that ran (not N/A) count; a run
// with one value on the dimension has no rows.
func CompareAlong(dir string, cells []result.Cell, dim result.Dimension) []result.Comparison {
	values := dim.Values(cells)
	if len(values) < 2 {
		return nil
	}
	type key struct{ scenario, mode, others string }
	byKey := map[key]map[string][]result.Cell{}
	var keys []key
	for _, c := range cells {
		if dim.Of(c) == "" || c.Dir == "" || c.Verdict == verdict.NA {
			continue
		}
		k := key{c.Scenario, modeLabel(c), dim.Others(c)}
		if byKey[k] == nil {
			byKey[k] = map[string][]result.Cell{}
			keys = append(keys, k)
		}
		byKey[k][dim.Of(c)] = append(byKey[k][dim.Of(c)], c)
	}
	var out []result.Comparison
	base := values[0]
	for _, k := range keys {
		for _, v := range values[1:] {
			b, cand := byKey[k][base], byKey[k][v]
			if len(b) == 0 || len(cand) == 0 {
				continue
			}
			bs, unit := dimensionSample(dir, b)
			cs, _ := dimensionSample(dir, cand)
			if len(bs) == 0 || len(cs) == 0 {
				continue
			}
			cmp := bench.Compare(bs, cs, 0)
			out = append(out, dim.Within(result.Comparison{Scenario: k.scenario, Mode: k.mode, Metric: bench.TxnCommitDuration, Unit: unit,
				Baseline: base, Candidate: v, BaselineMedianMs: round3(cmp.BaselineMedian), CandidateMedianMs: round3(cmp.CandidateMedian),
				Ratio: round3(cmp.Ratio), P: cmp.P, N1: cmp.N1, N2: cmp.N2, Significant: cmp.Significant,
				Words: cmp.Words(v, base)}, b[0]))
		}
	}
	return out
}

// The units of a dimension value's sample (Comparison.Unit).
const (
	UnitCommits = "commits"
	UnitRepeats = "repeats' p50"
)

// dimensionSample is one value's (a release's, a client's) sample of a
// scenario and mode: each repeat's commit p50 when it ran more than once,
// else its one cell's commits.
func dimensionSample(dir string, cells []result.Cell) ([]float64, string) {
	if len(cells) > 1 {
		var p50s []float64
		for _, c := range cells {
			if c.CommitP50Ms > 0 {
				p50s = append(p50s, c.CommitP50Ms)
			}
		}
		return p50s, UnitRepeats
	}
	return commitSample(filepath.Join(dir, cells[0].Dir)), UnitCommits
}

// modeLabel is the cell's mode with its realization, so two realizations
// are never pooled.
func modeLabel(c result.Cell) string {
	if c.Realization != "" {
		return c.Mode + "/" + c.Realization
	}
	return c.Mode
}

// commitSample is every commit duration (ms) in a cell's histories; none
// when they cannot be read.
func commitSample(cellDir string) []float64 {
	h, err := history.ReadDir(filepath.Join(cellDir, "histories"))
	if err != nil {
		return nil
	}
	var ms []float64
	for _, e := range h {
		if e.Type == history.OK && e.F == history.FCommit {
			ms = append(ms, float64(time.Duration(e.DurNS))/float64(time.Millisecond))
		}
	}
	return ms
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
