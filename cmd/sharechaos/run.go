package main

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/judge"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites"
	"github.com/sharechaos/sharechaos/suites/harness"
)

const runLong = `Runs consume-transform-produce loops against a Kafka cluster behind toxiproxy,
injects one fault per scenario, drains, and checks that nothing was lost or
duplicated beyond what each ack mode allows. Writes a run directory with
result.json, summary.md, report.html, junit.xml, the histories and .hgrm files.`

const runExample = `  sharechaos run                                   # the smoke profile, all modes
  sharechaos run --scenario steady,crash-after-commit --mode explicit,implicit --records 2000
  sharechaos run --backend docker --profile nightly --seed 42
  sharechaos run --threshold 'txn_commit_duration{mode:transactional}: p(99)<500ms'`

// runFlags is what run's flags fill while they are parsed.
type runFlags struct {
	o            suites.Options
	lists        harness.CommonLists
	scenarios    harness.ListFlag
	scenarioFile string
	verbose      bool
}

// thresholdHelp names the metrics from bench.Metrics and the counters from
// the runner, their homes.
var thresholdHelp = wrap(`Thresholds (--threshold, k6 style, repeatable): metric{tag:value,...}: stat op limit,
where stat is p(N), med, avg, min, max, count or rate; tags scenario, mode,
backend, realization. Metrics: the latencies of result.json's cells (` + bench.MetricList(bench.Latency, bench.InRun) +
	") and the counts " + strings.Join(judge.ThresholdCounters(), ", ") + ".")

func newRunCmd(rawArgs []string) *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:     "run [flags]",
		Short:   "run a scenario matrix and judge it (loss, duplicates, ...)",
		Long:    runLong,
		Example: runExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return codeOf(runRun(cmd, &rf, rawArgs, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
		Annotations: map[string]string{footerKey: scenarioHelp() + "\n\n" + thresholdHelp + "\n\n" + envHelp + "\n\n" + exitCodes},
	}
	fs := cmd.Flags()
	rf.o.Register(fs, &rf.lists, &rf.scenarios)
	fs.StringVar(&rf.scenarioFile, "scenario-file", "", "YAML file of scenarios, fault schedules, profiles and thresholds, added to the catalog for this run (see examples/scenarios/)")
	fs.BoolVarP(&rf.verbose, "verbose", "v", false, "log every step")
	annotateGroups(fs)
	return cmd
}

// positiveValues are run's counts and durations by flag name: the library
// reads a zero as "the default", but on the command line a zero is the
// user's, and wrong for every one.
func positiveValues(o suites.Options) map[string]float64 {
	return map[string]float64{
		"records": float64(o.Records), "workers": float64(o.Workers), "partitions": float64(o.Partitions),
		"batch": float64(o.MaxRecords), "brokers": float64(o.Brokers), "repeats": float64(o.Repeats),
		"parallel": float64(o.Parallel), "clusters": float64(o.Clusters), "lock": float64(o.Lock), "txn-timeout": float64(o.TxnTimeout),
		"drain-timeout": float64(o.DrainTimeout), "duration": float64(o.Duration), "rate": o.Rate, "fault-pause": float64(o.FaultPause),
	}
}

// runRun turns run's parsed flags into suites.Options and runs.
func runRun(cmd *cobra.Command, rf *runFlags, rawArgs []string, stdout, stderr io.Writer) int {
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sharechaos run: "+format+"\n", a...)
		return verdict.ExitUsage
	}
	fs := cmd.Flags()
	o := rf.o
	if err := rf.lists.Apply(&o.Common); err != nil {
		return usage("%v", err)
	}
	o.Scenarios = rf.scenarios
	if rf.scenarioFile != "" {
		f, err := scenarios.LoadFile(rf.scenarioFile)
		if err != nil {
			return usage("--scenario-file: %v", err)
		}
		cat, err := scenarios.WithExtra(f.Scenarios, f.Profiles)
		if err != nil {
			return usage("--scenario-file %s: %v", rf.scenarioFile, err)
		}
		o.Catalog = &cat
		o.Thresholds = append(o.Thresholds, f.Thresholds...)
	}
	if err := checkPositive(fs, positiveValues(o)); err != nil {
		return usage("%v", err)
	}
	o.Command = replayCommand("run", rawArgs, fs, runReplayDropped...)
	o.Progress, o.ProgressLive = stdout, isTerminal(stdout)
	// https://no-color.org: any non-empty NO_COLOR turns colour off.
	o.ProgressColor = os.Getenv("NO_COLOR") == ""
	level := slog.LevelWarn
	if rf.verbose {
		level = slog.LevelInfo
	}
	o.Log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	start := time.Now()
	res, err := suites.Run(cmd.Context(), o)
	var ue *harness.UsageError
	if errors.As(err, &ue) {
		return usage("%v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sharechaos run: %v\n", err)
		return verdict.ExitHarnessError
	}
	reports.WriteFlakeText(stdout, res.Runs)
	if line := reports.TimeLine(res); line != "" {
		fmt.Fprintf(stdout, "\n%s\n", line)
	}
	fmt.Fprintf(stdout, "\n%s: %s\nseed %d, backend %s (%s), %.0fs\n",
		res.Verdict, res.Verdict.Words(), res.Seed, res.Backend, res.BackendWhy, time.Since(start).Seconds())
	printFailedThresholds(stdout, res.Thresholds)
	printHarnessErrors(stdout, res.Runs)
	fmt.Fprintf(stdout, "report: %s\n", res.Dir+"/summary.md")
	if res.Command != "" {
		fmt.Fprintf(stdout, "replay: %s\n", res.Command)
	}
	return res.ExitCode
}

// printHarnessErrors names every cell the suite itself failed, with its
// reason (an image missing, a cluster that did not start): the console
// says why, not only summary.md.
func printHarnessErrors(w io.Writer, cells []result.Cell) {
	for _, c := range cells {
		if c.Verdict == verdict.HarnessError {
			fmt.Fprintf(w, "harness error: %s: %s\n", c.Name(), cmp.Or(c.Reason, "no reason recorded"))
		}
	}
}

// printFailedThresholds names each failed threshold with its bound (the
// threshold as written), where it failed and the value observed there.
func printFailedThresholds(w io.Writer, ts []result.ThresholdResult) {
	for _, t := range ts {
		if t.Pass {
			continue
		}
		if t.Reason != "" { // the reason has the value and the bound
			fmt.Fprintf(w, "threshold failed: %s on %s: %s\n", t.Threshold, t.Scope, t.Reason)
			continue
		}
		fmt.Fprintf(w, "threshold failed: %s on %s: observed %s\n", t.Threshold, t.Scope, strconv.FormatFloat(t.Observed, 'g', 4, 64)+t.Unit)
	}
}

// checkPositive refuses a zero or negative value of any flag the command
// line gave; values maps flag names to the parsed values.
func checkPositive(fs *flag.FlagSet, values map[string]float64) error {
	var bad []string
	for name, v := range values {
		if explicitlySet(fs, name) && v <= 0 {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	name, v := bad[0], values[bad[0]]
	if fs.Lookup(name).Value.Type() == "duration" {
		return fmt.Errorf("--%s %s: want a positive duration", name, time.Duration(v))
	}
	return fmt.Errorf("--%s %d: want a positive number", name, int64(v))
}

// isTerminal reports whether w is a terminal the live bars can draw on: a
// character device that knows its width (a pty without a size, as under
// `script`, would show nothing: plain lines instead).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	return err == nil && ws.Col > 0
}
