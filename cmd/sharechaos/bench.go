package main

import (
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/bench"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/benchrun"
	"github.com/sharechaos/sharechaos/suites/harness"
)

const benchLong = `Compares the latency of the ack modes on one cluster: for each link latency,
partition count, batch size and repeat, one run per mode, the modes
interleaved (A B C A B C ...). Each run has its own topics, share group and
transactional ids, pre-seeded input, and --workers in-process CTP workers,
each driven open loop at --rate/--workers transactions per second (latency
from the intended start: no coordinated omission; ticks that cannot start are
counted as dropped_iterations). A warm-up at the same rate is left out.

Every mode is compared with explicit per batch size, metric and percentile by
a Mann-Whitney U test whose unit is one repeat's percentile (n = --repeats per
mode): the p-value, the ratio of medians, or "no significant difference".
Writes bench.json, summary.md, report.html, hgrm/*.hgrm and runs/*/ (each
run's worker histories, snapshot and .hgrm files).`

const benchExample = `  sharechaos bench --mode transactional,explicit,implicit --repeats 5 --batch 1,10,100 --rate 20 --duration 10s
  sharechaos bench --backend embedded --mode transactional/native,transactional/ledger,explicit  # the KIP vs its emulation
  sharechaos bench --latency 0,5ms,20ms --threshold 'txn_commit_duration: p(99)<250ms'
  sharechaos bench --rate 0 --duration 20s --batch 100      # closed loop: maximum throughput
  sharechaos bench --backend docker --fault broker-kill     # latency before / during / after a fault`

// benchThresholdHelp names the metrics from bench.Metrics, their one home.
var benchThresholdHelp = wrap(`Thresholds (k6 style, repeatable): metric{tag:value,...}: stat op limit, where
stat is p(N), med, avg, min, max, count or rate; tags mode, realization, batch,
partitions, latency, rate (20, closed). Metrics: ` + bench.MetricList(bench.Latency, bench.InBench) + ", " + bench.MetricList(bench.Counter, bench.InBench) + ".")

// benchFlags is what bench's flags fill while they are parsed.
type benchFlags struct {
	o                              benchrun.Options
	lists                          harness.CommonLists
	batches, partitions, latencies harness.ListFlag
	rates                          harness.ListFlag
	verbose                        bool
}

func newBenchCmd(rawArgs []string) *cobra.Command {
	var bf benchFlags
	cmd := &cobra.Command{
		Use:     "bench [flags]",
		Short:   "compare the commit latency of the ack modes",
		Long:    benchLong,
		Example: benchExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return codeOf(benchRun(cmd, &bf, rawArgs, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
		Annotations: map[string]string{footerKey: benchThresholdHelp + "\n\n" + envHelp + "\n\n" + benchExitCodes},
	}
	fs := cmd.Flags()
	o := &bf.o
	o.Common.Register(fs, &bf.lists)
	fs.Var(&bf.rates, "rate", "target transactions per second over all workers, repeated or comma-separated from low to high: one curve per mode; 0 = closed loop (as fast as possible), last (default: 20)")
	fs.DurationVar(&o.Duration, "duration", benchrun.DefaultBenchDuration, "measured load per run")
	fs.DurationVar(&o.Warmup, "warmup", benchrun.DefaultBenchWarmup, "load before each run's measurement, left out of every figure")
	fs.IntVar(&o.Repeats, "repeats", benchrun.DefaultBenchRepeats, "runs per mode at each batch size (the U test needs 4 to reach p<0.05)")
	fs.Var(&bf.batches, "batch", "records per transaction, repeated or comma-separated (default: 1,10,100)")
	fs.Var(&bf.partitions, "partitions", "partitions of the input and output topics, repeated or comma-separated (default: 4)")
	fs.Var(&bf.latencies, "latency", "latency toxiproxy adds to every link, repeated or comma-separated, e.g. 0,5ms,20ms (default: 0)")
	fs.IntVar(&o.Workers, "workers", benchrun.DefaultBenchWorkers, "in-process CTP workers per run, each driven at rate/workers")
	fs.StringVar(&o.Fault, "fault", "", "a cluster fault injected once during each run (e.g. broker-kill); figures split before/during/after")
	fs.BoolVar(&o.Overhead, "overhead", true, "measure the harness's own cost against a bare franz-go loop (explicit mode)")
	fs.Float64Var(&o.Alpha, "alpha", 0.05, "significance level of the comparisons")
	fs.IntVar(&o.MaxInput, "max-input", benchrun.DefaultMaxInput, "most records seeded before a run (more are added during the run if it runs low)")
	fs.BoolVarP(&bf.verbose, "verbose", "v", false, "log every step")
	annotateGroups(fs)
	return cmd
}

const benchExitCodes = "Exit codes: 0 PASS, 3 THRESHOLD-FAILED, 2 UNKNOWN (interrupted), 4 HARNESS-ERROR, 64 usage error."

// benchRun turns bench's parsed flags into benchrun.Options and runs.
func benchRun(cmd *cobra.Command, bf *benchFlags, rawArgs []string, stdout, stderr io.Writer) int {
	fs := cmd.Flags()
	o := bf.o
	batches, partitions, latencies := bf.batches, bf.partitions, bf.latencies
	lists := bf.lists
	verbose := &bf.verbose
	ctx := cmd.Context()
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sharechaos bench: "+format+"\n", a...)
		return verdict.ExitUsage
	}
	// The library reads a zero as "the default"; on the command line a zero
	// is the user's, and wrong for these.
	switch {
	case o.Duration <= 0:
		return usage("--duration %v: want a positive duration", o.Duration)
	case o.Repeats < 1:
		return usage("--repeats %d: want 1 or more", o.Repeats)
	case o.Workers < 1:
		return usage("--workers %d: want 1 or more", o.Workers)
	case o.Brokers < 1:
		return usage("--brokers %d: want 1 or more", o.Brokers)
	case o.MaxInput < 1:
		return usage("--max-input %d: want 1 or more", o.MaxInput)
	case o.Alpha <= 0 || o.Alpha >= 1:
		return usage("--alpha %v: want a level in (0, 1)", o.Alpha)
	}
	if err := lists.Apply(&o.Common); err != nil {
		return usage("%v", err)
	}
	var err error
	if o.Batches, err = intList("batch", batches); err != nil {
		return usage("%v", err)
	}
	if o.Partitions, err = intList("partitions", partitions); err != nil {
		return usage("%v", err)
	}
	for _, r := range bf.rates {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil {
			return usage("--rate %q: want transactions per second, such as 5, 20 or 0 (closed loop)", r)
		}
		o.Rates = append(o.Rates, v)
	}
	for _, l := range latencies {
		d, err := time.ParseDuration(l)
		if err != nil {
			return usage("--latency %q: want a duration such as 0, 5ms or 20ms", l)
		}
		o.Latencies = append(o.Latencies, d)
	}
	o.Command = replayCommand("bench", rawArgs, fs, "out")
	o.Progress = stdout
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	o.Log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	start := time.Now()
	if o.Out == "" {
		o.Out = filepath.Join("runs", start.Format("20060102-150405")+"-bench")
	}
	res, err := benchrun.Run(ctx, o)
	var ue *harness.UsageError
	if errors.As(err, &ue) {
		return usage("%v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sharechaos bench: %v\n", err)
		return verdict.ExitHarnessError
	}
	fmt.Fprintf(stdout, "\n%s: %s\nseed %d, backend %s (%s), %.0fs\n", res.Verdict, res.Verdict.Words(), res.Seed, res.Backend, res.BackendWhy, time.Since(start).Seconds())
	for _, t := range res.Thresholds {
		if !t.Pass {
			fmt.Fprintf(stdout, "threshold failed: %s [%s]: %s\n", t.Threshold, t.Scope, t.Reason)
		}
	}
	if res.Verdict == verdict.HarnessError {
		// Why the suite failed, on the console as in summary.md: the
		// bench's notes and each failed repeat's error.
		for _, n := range res.Notes {
			fmt.Fprintf(stdout, "harness error: %s\n", n)
		}
		for _, r := range res.Runs {
			if r.Error != "" {
				fmt.Fprintf(stdout, "harness error: %s batch %d repeat %d: %s\n", r.Label(), r.Batch, r.Repeat, r.Error)
			}
		}
	}
	if res.HarnessOverhead > 0 {
		fmt.Fprintf(stdout, "harness overhead: %.3f (instrumented explicit txn_total_duration p50 / bare franz-go loop's)\n", res.HarnessOverhead)
		if res.HarnessOverheadWhy != "" {
			fmt.Fprintf(stdout, "harness overhead, why: %s\n", res.HarnessOverheadWhy)
		}
	}
	for _, line := range benchrun.CurveLines(res) {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "report: %s\n", filepath.Join(o.Out, benchrun.ReportFile(o)))
	return res.ExitCode
}

// intList parses a list flag of positive integers.
func intList(name string, vals []string) ([]int, error) {
	var out []int
	for _, v := range vals {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("--%s %q: not a whole number", name, v)
		}
		out = append(out, n)
	}
	return out, nil
}
