package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

const runHelp = `Usage: sharechaos run [flags]

Runs consume-transform-produce loops against a Kafka cluster behind toxiproxy,
injects one fault per scenario, drains, and checks that nothing was lost or
duplicated beyond what each ack mode allows. Writes a run directory with
result.json, summary.md, report.html, junit.xml, the histories and .hgrm files.

Examples:
  sharechaos run                                   # the smoke profile, all modes
  sharechaos run --scenario steady,crash-after-commit --mode explicit,implicit --records 2000
  sharechaos run --backend docker --profile nightly --seed 42

Scenarios: %s
Modes: transactional, explicit, implicit

Flags:
`

// runCmd parses the flags of "run" and runs.
func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, runHelp, strings.Join(faults.Names(), ", "))
		fs.PrintDefaults()
	}
	var o suites.Options
	var scenarios, modes listFlag
	fs.StringVar(&o.Backend, "backend", "auto", "auto | embedded | docker: auto uses docker when an engine answers and the images exist, else the embedded kfake cluster")
	fs.StringVar(&o.Profile, "profile", "smoke", "smoke | nightly | qualification: the set of scenarios, when --scenario is not given")
	fs.Var(&scenarios, "scenario", "scenario names, repeated or comma-separated (overrides --profile)")
	fs.Var(&modes, "mode", "ack modes, repeated or comma-separated (default: all three)")
	fs.IntVar(&o.Records, "records", suites.DefaultRecords, "input records per cell")
	fs.Int64Var(&o.Seed, "seed", 0, "seed of every random choice (default: random, printed; replay a run with its seed)")
	fs.StringVar(&o.Out, "out", "", "run directory (default: a new folder under ./runs/)")
	fs.IntVar(&o.Workers, "workers", suites.DefaultWorkers, "worker processes per cell")
	var partitions, maxRecords int
	fs.IntVar(&partitions, "partitions", suites.DefaultPartitions, "partitions of the input and output topics")
	fs.IntVar(&maxRecords, "batch", suites.DefaultMaxRecords, "records per poll, and so at most per transaction")
	fs.IntVar(&o.Brokers, "brokers", suites.DefaultBrokers, "brokers in the cluster")
	fs.IntVar(&o.Repeats, "repeats", 0, "run every cell this many times (default 1; the qualification profile: 3)")
	fs.IntVar(&o.Parallel, "parallel", suites.DefaultParallel, "cells run at once when their faults stay inside their own workers (cluster faults always run alone)")
	fs.StringVar(&o.TxnAcks, "txn-acks", "auto", "auto | ledger | native: how the transactional mode puts acks in the transaction")
	fs.StringVar(&o.OnUnsupported, "on-unsupported", "fail", "fail | fallback: with --txn-acks native on a broker without KIP-1289, fail or run explicit")
	var thresholds multiFlag
	fs.Var(&thresholds, "threshold", "k6-style bound on every matching cell, repeatable: 'txn_commit_duration{mode:transactional}: p(99)<250ms' (fails the run with THRESHOLD-FAILED, exit 3)")
	var keys listFlag
	fs.Var(&keys, "kip1289-keys", "API keys of AddShareAcksToTxn,TxnShareAcknowledge (unallocated upstream; default 12890,12891, placeholders)")
	fs.DurationVar(&o.Lock, "lock", suites.DefaultLock, "acquisition lock duration")
	fs.DurationVar(&o.TxnTimeout, "txn-timeout", 0, "transaction timeout, shorter than --lock (default: 2/3 of --lock)")
	fs.DurationVar(&o.DrainTimeout, "drain-timeout", suites.DefaultDrainTimeout, "how long to wait for the share group to finish the input")
	verbose := fs.Bool("v", false, "log every step")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return verdict.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sharechaos run: unexpected argument %q (flags only; see --help)\n", fs.Arg(0))
		return verdict.ExitUsage
	}
	if len(keys) > 0 {
		k, err := parseKeys(keys)
		if err != nil {
			fmt.Fprintf(stderr, "sharechaos run: --kip1289-keys: %v\n", err)
			return verdict.ExitUsage
		}
		o.KIP1289Keys = k
	}
	o.Thresholds = thresholds
	o.Scenarios = scenarios
	for _, m := range modes {
		o.Modes = append(o.Modes, ctp.AckMode(m))
	}
	o.Partitions, o.MaxRecords = int32(partitions), int32(maxRecords)
	o.Command = "sharechaos run " + strings.Join(args, " ")
	o.Progress, o.ProgressLive = stdout, isTerminal(stdout)
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	o.Log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	start := time.Now()
	res, err := suites.Run(ctx, o)
	var ue *suites.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "sharechaos run: %v\n", err)
		return verdict.ExitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "sharechaos run: %v\n", err)
		return verdict.ExitHarnessError
	}
	fmt.Fprintf(stdout, "\n%s: %s\nseed %d, backend %s (%s), %.0fs\nreport: %s\n",
		res.Verdict, res.Verdict.Words(), res.Seed, res.Backend, res.BackendWhy, time.Since(start).Seconds(), res.Dir+"/summary.md")
	return res.ExitCode
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// parseKeys reads --kip1289-keys: two API keys.
func parseKeys(vals []string) (kip1289.APIKeys, error) {
	if len(vals) != 2 {
		return kip1289.APIKeys{}, fmt.Errorf("want two keys (AddShareAcksToTxn,TxnShareAcknowledge), got %d", len(vals))
	}
	var ks [2]int16
	for i, v := range vals {
		n, err := strconv.ParseInt(v, 10, 16)
		if err != nil {
			return kip1289.APIKeys{}, fmt.Errorf("key %q: %w", v, err)
		}
		ks[i] = int16(n)
	}
	return kip1289.APIKeys{AddShareAcksToTxn: ks[0], TxnShareAcknowledge: ks[1]}, nil
}
