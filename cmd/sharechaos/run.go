package main

import (
	"context"
	"errors"
	"fmt"
	flag "github.com/spf13/pflag"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites"
	"github.com/sharechaos/sharechaos/suites/harness"
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
		fmt.Fprintf(stderr, runHelp, strings.Join(scenarios.Names(), ", "))
		fs.PrintDefaults()
	}
	var o suites.Options
	var lists harness.CommonLists
	var scenarioList harness.ListFlag
	o.Register(fs, &lists, &scenarioList)
	verbose := fs.Bool("v", false, "log every step")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "%s: %v (see --help)\n", "sharechaos run", err)
		return verdict.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sharechaos run: unexpected argument %q (flags only; see --help)\n", fs.Arg(0))
		return verdict.ExitUsage
	}
	if err := lists.Apply(&o.Common); err != nil {
		fmt.Fprintf(stderr, "sharechaos run: %v\n", err)
		return verdict.ExitUsage
	}
	o.Scenarios = scenarioList
	// The library reads a zero as "the default"; on the command line a zero
	// is the user's, and wrong for every count.
	for _, name := range []string{"records", "workers", "partitions", "batch", "brokers", "repeats", "parallel"} {
		if f := fs.Lookup(name); f != nil && explicitlySet(fs, name) && (f.Value.String() == "0" || strings.HasPrefix(f.Value.String(), "-")) {
			fmt.Fprintf(stderr, "sharechaos run: --%s %s: want a positive number\n", name, f.Value.String())
			return verdict.ExitUsage
		}
	}
	o.Command = "sharechaos run " + strings.Join(args, " ")
	o.Progress, o.ProgressLive = stdout, isTerminal(stdout)
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	o.Log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	start := time.Now()
	res, err := suites.Run(ctx, o)
	var ue *harness.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "sharechaos run: %v\n", err)
		return verdict.ExitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "sharechaos run: %v\n", err)
		return verdict.ExitHarnessError
	}
	reports.WriteFlakeText(stdout, res.Runs)
	if line := reports.TimeLine(res); line != "" {
		fmt.Fprintf(stdout, "\n%s\n", line)
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

// explicitlySet reports whether the command line gave the flag.
func explicitlySet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
