package main

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/judge"
)

func newCheckCmd() *cobra.Command {
	var write bool
	var scenarioFile string
	cmd := &cobra.Command{
		Use:   "check DIR",
		Short: "re-check a stored run offline",
		Long: `Re-checks a stored run directory offline: the checker judges each cell again
from its stored observation and histories (after a checker fix, or to audit a
run from another machine) and prints each cell's verdict. A cell that cannot
be re-derived (missing observation, missing or cut history) is UNKNOWN.
The exit code is the re-checked verdict's.`,
		Example: "  sharechaos check runs/20261201-101500-42\n  sharechaos check runs/20261201-101500-42 --write",
		Args:    oneDir,
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, err := loadCatalog(scenarioFile)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "sharechaos check: --scenario-file: %v\n", err)
				return codeOf(verdict.ExitUsage)
			}
			return codeOf(checkRun(args[0], cat, write, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
		Annotations: map[string]string{footerKey: exitCodes},
	}
	cmd.Flags().BoolVar(&write, "write", false, "rewrite the run's reports with the new judgement")
	cmd.Flags().StringVar(&scenarioFile, "scenario-file", "", "the scenario file the run had (its rows are re-judged by their own expectations)")
	annotateGroups(cmd.Flags())
	return cmd
}

// checkRun re-checks dir and prints the judgement.
func checkRun(dir string, cat scenarios.Catalog, write bool, stdout, stderr io.Writer) int {
	res, changed, err := judge.RecheckWith(dir, cat)
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
	if write {
		if err := reports.WriteRun(dir, res, judge.RunFigures(dir, res)); err != nil {
			fmt.Fprintf(stderr, "sharechaos check: %v\n", err)
			return verdict.ExitHarnessError
		}
	}
	return res.ExitCode
}

func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "report DIR",
		Short:   "rewrite a stored run's summary.md, report.html, junit.xml",
		Long:    "Rewrites summary.md, report.html and junit.xml of a stored run from its result.json\n(after a report fix; the judgement is result.json's, see check to re-judge).",
		Example: "  sharechaos report runs/20261201-101500-42",
		Args:    oneDir,
		RunE: func(cmd *cobra.Command, args []string) error {
			return codeOf(reportRun(args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
}

// reportRun rewrites a stored run's reports from its result.json.
func reportRun(dir string, stdout, stderr io.Writer) int {
	// ReadResult refuses a file that does not read as the contract (an
	// unknown verdict, an exit code that does not go with it): rendering it
	// would print a verdict nobody derived.
	res, err := result.ReadResult(dir)
	if err != nil {
		fmt.Fprintf(stderr, "sharechaos report: %v\n", err)
		return verdict.ExitUsage
	}
	if err := reports.WriteRun(dir, res, judge.RunFigures(dir, res)); err != nil {
		fmt.Fprintf(stderr, "sharechaos report: %v\n", err)
		return verdict.ExitHarnessError
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, "summary.md"))
	return 0
}

// loadCatalog is the built-in catalog plus a scenario file's rows and
// profiles ("" for none).
func loadCatalog(path string) (scenarios.Catalog, error) {
	if path == "" {
		return scenarios.Catalog{}, nil
	}
	f, err := scenarios.LoadFile(path)
	if err != nil {
		return scenarios.Catalog{}, err
	}
	return scenarios.WithExtra(f.Scenarios, f.Profiles)
}
