package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	flag "github.com/spf13/pflag"
	"io"
	"os"
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/suites"
)

// checkCmd re-checks a stored run offline: the checker judges each cell again
// from its stored observation and histories (after a checker fix, or to audit
// a run from another machine). Its exit code is the re-checked verdict's.
func checkCmd(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	write := fs.Bool("write", false, "rewrite the run's reports with the new judgement")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: sharechaos check [--write] DIR\n\nRe-checks a stored run directory offline and prints each cell's verdict.\n\nFlags:")
		fs.PrintDefaults()
	}
	dir, code, ok := parseDirArg(fs, args, stderr)
	if !ok {
		return code
	}
	res, changed, err := suites.Recheck(dir)
	if err != nil {
		fmt.Fprintf(stderr, "sharechaos check: %v\n", err)
		return verdict.ExitUsage
	}
	for _, c := range res.Runs {
		fmt.Fprintf(stdout, "%-13s %s  input=%d processed=%d duplicated=%d lost=%d unseen=%d %s\n",
			c.Verdict, c.Name(), c.Input, c.Processed, c.Duplicated, c.Lost, c.Unseen, c.Reason)
	}
	for _, ch := range changed {
		fmt.Fprintf(stdout, "changed: %s\n", ch)
	}
	fmt.Fprintf(stdout, "%s: %s\n", res.Verdict, res.Verdict.Words())
	if *write {
		if err := reports.WriteRun(dir, res, suites.RunFigures(dir, res)); err != nil {
			fmt.Fprintf(stderr, "sharechaos check: %v\n", err)
			return verdict.ExitHarnessError
		}
	}
	return res.ExitCode
}

// reportCmd rewrites a stored run's reports from its result.json.
func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: sharechaos report DIR\n\nRewrites summary.md, report.html and junit.xml of a stored run from its result.json.")
	}
	dir, code, ok := parseDirArg(fs, args, stderr)
	if !ok {
		return code
	}
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		fmt.Fprintf(stderr, "sharechaos report: %v\n", err)
		return verdict.ExitUsage
	}
	var res reports.Result
	if err := json.Unmarshal(b, &res); err != nil {
		fmt.Fprintf(stderr, "sharechaos report: %s: %v\n", filepath.Join(dir, "result.json"), err)
		return verdict.ExitUsage
	}
	if err := reports.WriteRun(dir, res, suites.RunFigures(dir, res)); err != nil {
		fmt.Fprintf(stderr, "sharechaos report: %v\n", err)
		return verdict.ExitHarnessError
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, "summary.md"))
	return 0
}

// parseDirArg parses flags and the one DIR argument.
func parseDirArg(fs *flag.FlagSet, args []string, stderr io.Writer) (dir string, code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", 0, false
		}
		fmt.Fprintf(stderr, "sharechaos %s: %v (see --help)\n", fs.Name(), err)
		return "", verdict.ExitUsage, false
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "sharechaos %s: want one run directory, got %d arguments\n", fs.Name(), fs.NArg())
		return "", verdict.ExitUsage, false
	}
	return fs.Arg(0), 0, true
}
