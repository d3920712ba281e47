package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/hunt"
)

const huntLong = `Hunts for what no scenario row names. For a time budget it draws trials from
the seed: a shape (records, workers, batch, partitions), a worker arm (any
point of the loop, any action) and a schedule of up to --max-faults cluster
faults (every cluster fault of the catalog the backend runs, except the rows
of known upstream bugs, which a hunt must find on its own), with their
times; runs each in every mode (--mode) on the backend and judges it with the
run's checker against each mode's contract (transactional: nothing;
explicit: duplicates; implicit: duplicates and the loss of an aborted batch).

An ANOMALY is a finding. The hunt replays it --replays times, then shrinks
it: a fault fewer, fewer records, partitions, workers, a smaller batch,
shorter pauses, each candidate replayed --replays times and kept when it
fails in two thirds of them with one of the finding's anomalies. The
smallest is written as a scenario file with the command that replays it.
UNKNOWN and HARNESS-ERROR cells are listed, not findings.

Writes hunt.json and hunt.md (what was tried, what was found, each shrink
step) and findings/finding-N.yaml into --out; every round's run directory
stays under rounds/, every shrink step's under findings/N/. The same seed
draws the same trials.`

const huntExample = `  sharechaos hunt --budget 5m                                   # the embedded backend
  sharechaos hunt --backend docker --kafka-version 4.3.2 --budget 30m --seed 7
  SHARECHAOS_MUTANT=produce-twice sharechaos hunt --budget 5m    # a broken loop`

type huntFlags struct {
	o     hunt.Options
	lists harness.CommonLists
	menu  harness.ListFlag
}

func newHuntCmd() *cobra.Command {
	var f huntFlags
	cmd := &cobra.Command{
		Use:     "hunt [flags]",
		Short:   "draw fault schedules and shapes at random, judge them, shrink what fails",
		Long:    huntLong,
		Example: huntExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return codeOf(huntRun(cmd, &f, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
		Annotations: map[string]string{footerKey: envHelp + "\n\n" + exitCodes},
	}
	fs := cmd.Flags()
	o := &f.o
	o.Common.Register(fs, &f.lists)
	fs.DurationVar(&o.Lock, "lock", harness.DefaultLock, "acquisition lock duration")
	fs.DurationVar(&o.DrainTimeout, "drain-timeout", 0, "how long a cell waits for the share group to finish its input (default: run's)")
	fs.IntVar(&o.Parallel, "parallel", 0, "cells run at once when their faults stay inside their own workers (default: run's)")
	fs.DurationVar(&o.Budget, "budget", hunt.DefaultBudget, "how long to draw and run trials")
	fs.DurationVar(&o.ShrinkBudget, "shrink-budget", 0, "how long to shrink each finding (default: --budget)")
	fs.IntVar(&o.MaxFaults, "max-faults", hunt.DefaultMaxFaults, "most faults in one trial (the worker arm counts)")
	fs.IntVar(&o.Replays, "replays", hunt.DefaultReplays, "replays of each shrink candidate; it must fail in two thirds of them")
	fs.IntVar(&o.TrialsPerRound, "trials-per-round", hunt.DefaultTrialsPerRound, "trials run together on one cluster")
	fs.IntVar(&o.Findings, "findings", hunt.DefaultFindings, "distinct findings to shrink before the hunt stops")
	fs.Var(&f.menu, "fault", "cluster faults to mix, repeated or comma-separated (default: every one the hunt mixes: "+strings.Join(hunt.DefaultMenu(), ", ")+")")
	annotateGroups(fs)
	return cmd
}

func huntRun(cmd *cobra.Command, f *huntFlags, stdout, stderr io.Writer) int {
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sharechaos hunt: "+format+"\n", a...)
		return verdict.ExitUsage
	}
	fs := cmd.Flags()
	o := f.o
	if err := f.lists.Apply(&o.Common); err != nil {
		return usage("%v", err)
	}
	if err := checkPositive(fs, map[string]float64{"budget": float64(o.Budget), "shrink-budget": float64(o.ShrinkBudget),
		"max-faults": float64(o.MaxFaults), "replays": float64(o.Replays), "trials-per-round": float64(o.TrialsPerRound),
		"findings": float64(o.Findings), "lock": float64(o.Lock), "drain-timeout": float64(o.DrainTimeout),
		"parallel": float64(o.Parallel), "brokers": float64(o.Brokers)}); err != nil {
		return usage("%v", err)
	}
	if len(f.menu) > 0 {
		o.Menu = f.menu
	}
	o.DrawConsumer = !fs.Changed("consumer")
	o.Progress = stdout
	level := slog.LevelWarn
	o.Log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	rep, err := hunt.Run(cmd.Context(), o)
	var ue *harness.UsageError
	if errors.As(err, &ue) {
		return usage("%v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sharechaos hunt: %v\n", err)
	}
	cov := rep.Coverage
	fmt.Fprintf(stdout, "\nhunt: %d trials, %d cells (%s), %d finding(s), %d cell(s) judged nothing, %.0fs; seed %d\n",
		cov.Trials, cov.Cells, verdictCounts(cov.Verdicts), len(rep.Findings), len(cov.Unjudged), rep.TookS, rep.Seed)
	for i, fd := range rep.Findings {
		if fd.File != "" {
			fmt.Fprintf(stdout, "finding %d: %s in %s, shrunk to %s\n  %s\n  replay: %s\n", i+1, strings.Join(fd.Anomalies, ", "), fd.Cell.Dimensions, fd.Shrink.Final, fd.File, fd.Command)
		}
	}
	if rep.Dir != "" {
		fmt.Fprintf(stdout, "report: %s\n", rep.Dir+"/hunt.md")
	}
	return rep.ExitCode
}

func verdictCounts(m map[verdict.Verdict]int) string {
	var out []string
	for _, v := range verdict.All() {
		if m[v] > 0 {
			out = append(out, fmt.Sprintf("%d %s", m[v], v))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
