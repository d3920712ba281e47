package judge

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/result"
)

// CompareVersions compares each release's commit latency with the first
// release's (the run's order), per scenario and mode, by the U test, as the
// bench compares modes. The sample of a cell is every commit its histories
// timed (txn_commit_duration), read from the run directory, so a re-check
// gets the same rows. Only cells that ran (not N/A) on both sides count; a
// run without releases has no rows.
func CompareVersions(dir string, cells []result.Cell) []result.VersionComparison {
	versions := runVersions(cells)
	if len(versions) < 2 {
		return nil
	}
	type key struct{ scenario, mode string }
	samples := map[key]map[string][]float64{}
	var keys []key
	for _, c := range cells {
		if c.KafkaVersion == "" || c.Dir == "" || c.Repeat > 1 {
			continue
		}
		k := key{c.Scenario, modeLabel(c)}
		if samples[k] == nil {
			samples[k] = map[string][]float64{}
			keys = append(keys, k)
		}
		samples[k][c.KafkaVersion] = append(samples[k][c.KafkaVersion], commitSample(filepath.Join(dir, c.Dir))...)
	}
	var out []result.VersionComparison
	base := versions[0]
	for _, k := range keys {
		b := samples[k][base]
		if len(b) == 0 {
			continue
		}
		for _, v := range versions[1:] {
			cand := samples[k][v]
			if len(cand) == 0 {
				continue
			}
			cmp := bench.Compare(b, cand, 0)
			out = append(out, result.VersionComparison{Scenario: k.scenario, Mode: k.mode, Metric: bench.TxnCommitDuration,
				Baseline: base, Candidate: v, BaselineMedianMs: round3(cmp.BaselineMedian), CandidateMedianMs: round3(cmp.CandidateMedian),
				Ratio: round3(cmp.Ratio), P: cmp.P, N1: cmp.N1, N2: cmp.N2, Significant: cmp.Significant,
				Words: cmp.Words(v, base)})
		}
	}
	return out
}

// runVersions are the releases of the cells, in the order they first appear
// (the order they ran).
func runVersions(cells []result.Cell) []string {
	var vs []string
	for _, c := range cells {
		if c.KafkaVersion != "" && !slices.Contains(vs, c.KafkaVersion) {
			vs = append(vs, c.KafkaVersion)
		}
	}
	return vs
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
