package benchrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/harness"
)

// A bench over several Kafka releases (--kafka-version a,b,c) is one bench
// per release, one after another, each a whole bench directory of its own
// (OUT/kafka-<release>/, with the same seed and schedule), then the
// releases compared per mode and batch size: each release's repeats'
// txn_commit_duration p50 against the first release's, by the U test over
// repeats, as the bench compares modes (releases.json, releases.md).
const (
	releasesJSON = "releases.json"
	releasesMD   = "releases.md"
)

// releasesFile is releases.json.
type releasesFile struct {
	Verdict     verdict.Verdict     `json:"verdict"`
	ExitCode    int                 `json:"exit_code"`
	Seed        int64               `json:"seed"`
	Releases    []releaseBench      `json:"releases"`
	Comparisons []result.Comparison `json:"comparisons"`
}

// releaseBench is one release's bench: where it is and how it ended.
type releaseBench struct {
	Release string          `json:"release"`
	Dir     string          `json:"dir"`
	Verdict verdict.Verdict `json:"verdict"`
}

// runReleases runs the bench once per release and compares them. The
// returned Bench is the last release's with the worst verdict of all.
func runReleases(ctx context.Context, o Options) (result.Bench, error) {
	// Every release's image before anything runs: a missing third one must
	// not cost two benches first.
	if err := harness.CheckVersionImages(ctx, o.Backends.Docker, harness.ChooseBackend(ctx, o.Backend).Name); err != nil {
		return result.Bench{ExitCode: verdict.ExitUsage}, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return result.Bench{ExitCode: verdict.ExitUsage}, fmt.Errorf("bench: %w", err)
	}
	var (
		benches []result.Bench
		rf      = releasesFile{Seed: o.Seed}
		last    result.Bench
	)
	for _, v := range o.Backends.Docker.KafkaVersions {
		if ctx.Err() != nil {
			break
		}
		ov := o
		ov.Backends.Docker = o.Backends.Docker.ForVersion(v)
		ov.Out = filepath.Join(o.Out, "kafka-"+v)
		fmt.Fprintf(o.Progress, "sharechaos bench: Kafka %s into %s\n", v, ov.Out)
		b, err := Run(ctx, ov)
		if err != nil {
			return b, err
		}
		benches, last = append(benches, b), b
		rf.Releases = append(rf.Releases, releaseBench{Release: v, Dir: "kafka-" + v, Verdict: b.Verdict})
	}
	rf.Comparisons = compareReleases(o.Backends.Docker.KafkaVersions, benches, o.Alpha)
	vs := make([]verdict.Verdict, len(benches))
	for i, b := range benches {
		vs[i] = b.Verdict
	}
	rf.Verdict = verdict.Worst(vs...)
	rf.ExitCode = rf.Verdict.ExitCode()
	last.Verdict, last.ExitCode = rf.Verdict, rf.ExitCode
	if err := writeReleases(o.Out, rf); err != nil {
		fmt.Fprintf(o.Progress, "sharechaos bench: write %s: %v\n", releasesJSON, err)
	}
	fmt.Fprint(o.Progress, releasesWords(rf))
	return last, nil
}

// compareReleases compares every release's repeats with the first
// release's, per mode and batch size: txn_commit_duration p50 per repeat.
func compareReleases(releases []string, benches []result.Bench, alpha float64) []result.Comparison {
	if len(benches) < 2 {
		return nil
	}
	type key struct {
		mode  string
		batch int
	}
	sample := func(b result.Bench, k key) []float64 {
		var vs []float64
		for _, r := range b.Runs {
			if p, ok := r.Latency[bench.TxnCommitDuration]; ok && r.Error == "" && r.Label() == k.mode && r.Batch == k.batch && p.Count > 0 {
				vs = append(vs, p.P50)
			}
		}
		return vs
	}
	var keys []key
	for _, r := range benches[0].Runs {
		if k := (key{r.Label(), r.Batch}); !containsKey(keys, k, func(a, b key) bool { return a == b }) {
			keys = append(keys, k)
		}
	}
	var out []result.Comparison
	for _, k := range keys {
		base := sample(benches[0], k)
		for i, b := range benches[1:] {
			cand := sample(b, k)
			if len(base) == 0 || len(cand) == 0 {
				continue
			}
			c := bench.Compare(base, cand, alpha)
			out = append(out, result.Comparison{Scenario: fmt.Sprintf("bench, batch %d", k.batch), Mode: k.mode,
				Metric: bench.TxnCommitDuration, Unit: "repeats' p50", Baseline: releases[0], Candidate: releases[i+1],
				BaselineMedianMs: c.BaselineMedian, CandidateMedianMs: c.CandidateMedian, Ratio: c.Ratio, P: c.P,
				N1: c.N1, N2: c.N2, Significant: c.Significant, Words: c.Words(releases[i+1], releases[0])})
		}
	}
	return out
}

func containsKey[K any](ks []K, k K, eq func(a, b K) bool) bool {
	for _, x := range ks {
		if eq(x, k) {
			return true
		}
	}
	return false
}

// writeReleases writes releases.json and releases.md.
func writeReleases(dir string, rf releasesFile) error {
	b, err := json.MarshalIndent(rf, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, releasesJSON), b); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, releasesMD), []byte(releasesWords(rf)))
}

// releasesWords is releases.md: each release's verdict and directory, then
// the comparisons.
func releasesWords(rf releasesFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sharechaos bench over Kafka releases: %s\n\n| release | verdict | bench |\n|---|---|---|\n", rf.Verdict)
	for _, r := range rf.Releases {
		fmt.Fprintf(&b, "| %s | %s | %s/ |\n", r.Release, r.Verdict, r.Dir)
	}
	fmt.Fprint(&b, "\n| mode | where | release | vs | median ms | baseline median ms | ratio | n | result |\n|---|---|---|---|---:|---:|---:|---:|---|\n")
	for _, c := range rf.Comparisons {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f | %.3f | %.2f | %d+%d | %s |\n", c.Mode, c.Scenario, c.Candidate, c.Baseline,
			c.CandidateMedianMs, c.BaselineMedianMs, c.Ratio, c.N1, c.N2, c.Words)
	}
	return b.String()
}

// ReportFile is the page a person reads first in a bench's directory:
// releases.md for a bench over releases, else summary.md.
func ReportFile(o Options) string {
	if len(o.Backends.Docker.KafkaVersions) > 1 {
		return releasesMD
	}
	return "summary.md"
}
