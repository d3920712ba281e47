package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

const benchHelp = `Usage: sharechaos bench [flags]

Compares the latency of the ack modes on one cluster: for each link latency,
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
run's worker histories, snapshot and .hgrm files).

Examples:
  sharechaos bench --mode transactional,explicit,implicit --repeats 5 --batch 1,10,100 --rate 20 --duration 10s
  sharechaos bench --latency 0,5ms,20ms --threshold 'txn_commit_duration: p(99)<250ms'
  sharechaos bench --rate 0 --duration 20s --batch 100      # closed loop: maximum throughput
  sharechaos bench --backend docker --fault broker-kill     # latency before / during / after a fault

Thresholds (k6 style, repeatable): metric{tag:value,...}: stat op limit, where
stat is p(N), med, avg, min, max, count or rate; tags mode, realization, batch,
partitions, latency. Metrics: txn_total_duration, txn_service_duration,
txn_commit_duration, share_ack_duration, txn_acks_duration, e2e_latency,
iteration_duration, transactions, records, dropped_iterations.

Exit codes: 0 PASS, 3 THRESHOLD-FAILED, 2 UNKNOWN (interrupted), 4 HARNESS-ERROR, 64 usage error.

Flags:
`

// benchCmd parses the flags of "bench" and runs it.
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, benchHelp)
		fs.PrintDefaults()
	}
	var o suites.BenchOptions
	var modes, batches, partitions, latencies, keys listFlag
	var thresholds thresholdFlag
	fs.StringVar(&o.Backend, "backend", "auto", "auto | embedded | docker: auto uses docker when an engine answers and the images exist, else the embedded kfake cluster")
	fs.Var(&modes, "mode", "ack modes, repeated or comma-separated (default: transactional,explicit,implicit)")
	fs.Float64Var(&o.Rate, "rate", suites.DefaultBenchRate, "target transactions per second over all workers; 0 = closed loop (as fast as possible)")
	fs.DurationVar(&o.Duration, "duration", suites.DefaultBenchDuration, "measured load per run")
	fs.DurationVar(&o.Warmup, "warmup", suites.DefaultBenchWarmup, "load before each run's measurement, left out of every figure")
	fs.IntVar(&o.Repeats, "repeats", suites.DefaultBenchRepeats, "runs per mode at each batch size (the U test needs 4 to reach p<0.05)")
	fs.Var(&batches, "batch", "records per transaction, repeated or comma-separated (default: 1,10,100)")
	fs.Var(&partitions, "partitions", "partitions of the input and output topics, repeated or comma-separated (default: 4)")
	fs.Var(&latencies, "latency", "latency toxiproxy adds to every link, repeated or comma-separated, e.g. 0,5ms,20ms (default: 0)")
	fs.IntVar(&o.Workers, "workers", suites.DefaultBenchWorkers, "in-process CTP workers per run, each driven at rate/workers")
	fs.IntVar(&o.Brokers, "brokers", suites.DefaultBrokers, "brokers in the cluster")
	fs.Var(&thresholds, "threshold", "k6-style threshold, e.g. 'txn_commit_duration: p(99)<250ms'; repeated or comma-separated")
	fs.StringVar(&o.Fault, "fault", "", "a cluster fault injected once during each run (e.g. broker-kill); figures split before/during/after")
	fs.Int64Var(&o.Seed, "seed", 0, "seed (default: random, printed)")
	fs.StringVar(&o.Out, "out", "", "bench directory (default: a new folder under ./runs/)")
	fs.StringVar(&o.TxnAcks, "txn-acks", "auto", "auto | ledger | native: how the transactional mode puts acks in the transaction")
	fs.StringVar(&o.OnUnsupported, "on-unsupported", "fail", "fail | fallback: with --txn-acks native on a broker without KIP-1289, fail or leave the transactional mode out")
	fs.Var(&keys, "kip1289-keys", "API keys of AddShareAcksToTxn,TxnShareAcknowledge (unallocated upstream; default 12890,12891, placeholders)")
	fs.BoolVar(&o.Overhead, "overhead", true, "measure the harness's own cost against a bare franz-go loop (explicit mode)")
	fs.Float64Var(&o.Alpha, "alpha", 0.05, "significance level of the comparisons")
	fs.IntVar(&o.MaxInput, "max-input", suites.DefaultMaxInput, "most records seeded before a run (more are added during the run if it runs low)")
	fs.BoolVar(&o.KeepTopics, "keep-topics", false, "keep each run's topics and share group on the cluster (deleted after each run by default)")
	verbose := fs.Bool("v", false, "log every step")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return verdict.ExitUsage
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sharechaos bench: "+format+"\n", a...)
		return verdict.ExitUsage
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q (flags only; see --help)", fs.Arg(0))
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
	for _, m := range modes {
		o.Modes = append(o.Modes, ctp.AckMode(m))
	}
	var err error
	if o.Batches, err = intList("batch", batches); err != nil {
		return usage("%v", err)
	}
	if o.Partitions, err = intList("partitions", partitions); err != nil {
		return usage("%v", err)
	}
	for _, l := range latencies {
		d, err := time.ParseDuration(l)
		if err != nil {
			return usage("--latency %q: want a duration such as 0, 5ms or 20ms", l)
		}
		o.Latencies = append(o.Latencies, d)
	}
	if len(keys) > 0 {
		k, err := parseKeys(keys)
		if err != nil {
			return usage("--kip1289-keys: %v", err)
		}
		o.KIP1289Keys = k
	}
	o.Thresholds = thresholds
	o.Command = "sharechaos bench " + strings.Join(args, " ")
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
	res, err := suites.Bench(ctx, o)
	var ue *suites.UsageError
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
	if res.HarnessOverhead > 0 {
		fmt.Fprintf(stdout, "harness overhead: %.3f (instrumented explicit txn_total_duration p50 / bare franz-go loop's)\n", res.HarnessOverhead)
	}
	fmt.Fprintf(stdout, "report: %s\n", filepath.Join(o.Out, "summary.md"))
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

// thresholdFlag repeats and takes commas like listFlag, but a comma inside a
// tag selector ({mode:explicit,batch:10}) belongs to the threshold.
type thresholdFlag []string

func (t *thresholdFlag) String() string { return strings.Join(*t, ", ") }

func (t *thresholdFlag) Set(s string) error {
	depth, start := 0, 0
	add := func(part string) {
		if part = strings.TrimSpace(part); part != "" {
			*t = append(*t, part)
		}
	}
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				add(s[start:i])
				start = i + 1
			}
		}
	}
	add(s[start:])
	return nil
}
