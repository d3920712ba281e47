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

// A bench over several values of a plan dimension (Kafka releases:
// --kafka-version a,b; Kafka images: --kafka-image a,b; clients: --client
// go,java) is one bench per value,
// one after another, each a whole bench directory of its own
// (OUT/kafka-<release>/, OUT/image-<image>/, OUT/client-<client>/, with the same seed and
// schedule), then the values compared per mode and batch size: each value's
// repeats' txn_commit_duration p50 against the first value's, by the U test
// over repeats, as the bench compares modes (releases.json and releases.md,
// clients.json and clients.md). A bench over releases and clients runs the
// clients inside each release's directory.
type benchAxis struct {
	// name is one value's word in the files ("release"), plural the
	// files' and the list's ("releases"), title the page's ("Kafka
	// releases").
	name, plural, title string
	// values are the values o names (one or none: no bench along it).
	values func(Options) []string
	// only is o narrowed to the value v.
	only func(o Options, v string) Options
	// dir is v's bench directory under OUT.
	dir func(v string) string
	// check finds, before anything runs, what would keep a value's bench
	// from running (a release's image).
	check func(ctx context.Context, o Options) error
}

// benchAxes are the dimensions a bench runs along, the outer first.
var benchAxes = []benchAxis{
	{name: "release", plural: "releases", title: "Kafka releases",
		values: func(o Options) []string { return o.Backends.Docker.KafkaVersions },
		only: func(o Options, v string) Options {
			o.Backends.Docker = o.Backends.Docker.ForVersion(v)
			return o
		},
		dir: func(v string) string { return "kafka-" + v },
		check: func(ctx context.Context, o Options) error {
			return harness.CheckDockerImages(ctx, o.Backends.Docker, harness.ChooseBackend(ctx, o.Backend).Name)
		}},
	{name: "image", plural: "images", title: "Kafka images",
		values: func(o Options) []string { return o.Backends.Docker.KafkaImages },
		only: func(o Options, v string) Options {
			o.Backends.Docker = o.Backends.Docker.ForImage(v)
			return o
		},
		dir: func(v string) string { return "image-" + imageDir.Replace(v) },
		check: func(ctx context.Context, o Options) error {
			return harness.CheckDockerImages(ctx, o.Backends.Docker, harness.ChooseBackend(ctx, o.Backend).Name)
		}},
	{name: "client", plural: "clients", title: "clients",
		values: func(o Options) []string { return o.Clients },
		only: func(o Options, v string) Options {
			o.Clients = []string{v}
			return o
		},
		dir:   func(v string) string { return "client-" + v },
		check: func(context.Context, Options) error { return nil }},
}

// imageDir spells an image reference as a directory name:
// sharechaos/kafka-kip1289:4.3.1 is image-sharechaos_kafka-kip1289_4.3.1.
var imageDir = strings.NewReplacer("/", "_", ":", "_", "@", "_")

// benchAxisOf is the outermost dimension o names two values or more of.
func benchAxisOf(o Options) (benchAxis, bool) {
	for _, a := range benchAxes {
		if len(a.values(o)) > 1 {
			return a, true
		}
	}
	return benchAxis{}, false
}

// alongFile is releases.json or clients.json.
type alongFile struct {
	axis        benchAxis
	Verdict     verdict.Verdict
	ExitCode    int
	Seed        int64
	Values      []valueBench
	Comparisons []result.Comparison
}

// valueBench is one value's bench: where it is and how it ended.
type valueBench struct {
	Value   string
	Dir     string
	Verdict verdict.Verdict
}

// MarshalJSON spells the values with the axis's words: {"releases":
// [{"release": ...}]} or {"clients": [{"client": ...}]}.
func (f alongFile) MarshalJSON() ([]byte, error) {
	values := make([]map[string]any, len(f.Values))
	for i, v := range f.Values {
		values[i] = map[string]any{f.axis.name: v.Value, "dir": v.Dir, "verdict": v.Verdict}
	}
	comparisons := f.Comparisons
	if comparisons == nil {
		comparisons = []result.Comparison{}
	}
	return json.Marshal(map[string]any{"verdict": f.Verdict, "exit_code": f.ExitCode, "seed": f.Seed,
		f.axis.plural: values, "comparisons": comparisons})
}

// runAlong runs the bench once per value of axis and compares them. The
// returned Bench is the last value's with the worst verdict of all.
func runAlong(ctx context.Context, o Options, axis benchAxis) (result.Bench, error) {
	// Every value checked before anything runs: a missing third release's
	// image must not cost two benches first.
	if err := axis.check(ctx, o); err != nil {
		return result.Bench{ExitCode: verdict.ExitUsage}, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return result.Bench{ExitCode: verdict.ExitUsage}, fmt.Errorf("bench: %w", err)
	}
	var (
		benches []result.Bench
		f       = alongFile{axis: axis, Seed: o.Seed}
		last    result.Bench
		values  = axis.values(o)
	)
	for _, v := range values {
		if ctx.Err() != nil {
			break
		}
		ov := axis.only(o, v)
		ov.Out = filepath.Join(o.Out, axis.dir(v))
		fmt.Fprintf(o.Progress, "sharechaos bench: %s %s into %s\n", axis.name, v, ov.Out)
		b, err := Run(ctx, ov)
		if err != nil {
			return b, err
		}
		benches, last = append(benches, b), b
		f.Values = append(f.Values, valueBench{Value: v, Dir: axis.dir(v), Verdict: b.Verdict})
	}
	f.Comparisons = compareAlong(values, benches, o.Alpha)
	vs := make([]verdict.Verdict, len(benches))
	for i, b := range benches {
		vs[i] = b.Verdict
	}
	f.Verdict = verdict.Worst(vs...)
	f.ExitCode = f.Verdict.ExitCode()
	last.Verdict, last.ExitCode = f.Verdict, f.ExitCode
	if err := writeAlong(o.Out, f); err != nil {
		fmt.Fprintf(o.Progress, "sharechaos bench: write %s.json: %v\n", axis.plural, err)
	}
	fmt.Fprint(o.Progress, alongWords(f))
	return last, nil
}

// compareAlong compares every value's repeats with the first value's, per
// mode and batch size: txn_commit_duration p50 per repeat.
func compareAlong(values []string, benches []result.Bench, alpha float64) []result.Comparison {
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
				Metric: bench.TxnCommitDuration, Unit: "repeats' p50", Baseline: values[0], Candidate: values[i+1],
				BaselineMedianMs: c.BaselineMedian, CandidateMedianMs: c.CandidateMedian, Ratio: c.Ratio, P: c.P,
				N1: c.N1, N2: c.N2, Significant: c.Significant, Words: c.Words(values[i+1], values[0])})
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

// writeAlong writes the axis's .json and .md.
func writeAlong(dir string, f alongFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, f.axis.plural+".json"), b); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, f.axis.plural+".md"), []byte(alongWords(f)))
}

// alongWords is the axis's .md: each value's verdict and directory, then
// the comparisons with their p-values.
func alongWords(f alongFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sharechaos bench over %s: %s\n\n| %s | verdict | bench |\n|---|---|---|\n", f.axis.title, f.Verdict, f.axis.name)
	for _, v := range f.Values {
		fmt.Fprintf(&b, "| %s | %s | %s/ |\n", v.Value, v.Verdict, v.Dir)
	}
	fmt.Fprintf(&b, "\n| mode | where | %s | vs | median ms | baseline median ms | ratio | n | result |\n|---|---|---|---|---:|---:|---:|---:|---|\n", f.axis.name)
	for _, c := range f.Comparisons {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f | %.3f | %.2f | %d+%d | %s |\n", c.Mode, c.Scenario, c.Candidate, c.Baseline,
			c.CandidateMedianMs, c.BaselineMedianMs, c.Ratio, c.N1, c.N2, c.Words)
	}
	return b.String()
}

// ReportFile is the page a person reads first in a bench's directory:
// releases.md for a bench over releases, clients.md for one over clients,
// else summary.md.
func ReportFile(o Options) string {
	if a, ok := benchAxisOf(o); ok {
		return a.plural + ".md"
	}
	return "summary.md"
}
