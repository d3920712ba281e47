package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// The CLI is cobra over pflag: cobra gives `help CMD`, shell completion,
// flags after arguments and help on stdout for free, and its commands keep
// the pflag.FlagSet that harness.Common.Register and suites.Options.Register
// already fill, so no flag is declared twice. (kong would want the options as
// tagged struct fields, which the library's Options are not.)

const rootLong = `sharechaos: chaos and benchmarks for Kafka share groups with transactional acks (KIP-1289)

run drives consume-transform-produce loops against a Kafka cluster, injects
one fault per scenario and judges every cell (loss, duplicates, phantoms,
zombie commits); bench compares the commit latency of the ack modes.`

// exitCodes is printed in every command's help.
const exitCodes = `Exit codes:
  0 PASS, 1 ANOMALY, 2 UNKNOWN (interrupted, or a cell that could not be judged),
  3 THRESHOLD-FAILED, 4 HARNESS-ERROR, 64 usage error (nothing was run)`

// usageError is a command-line mistake: exit 64, nothing was run.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode carries a command's exit code out of cobra.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit %d", int(c)) }

// codeOf turns a command's int result into cobra's error.
func codeOf(code int) error {
	if code == 0 {
		return nil
	}
	return exitCode(code)
}

// execute builds the command tree and runs args through it.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(args)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Added here, not lazily by Execute, so a bare `sharechaos` lists them;
	// after SetOut, which the completion command captures.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	if len(args) == 0 {
		// A bare `sharechaos` is a usage error: the help on stderr, exit 64.
		root.SetOut(stderr)
		_ = root.Help()
		return verdict.ExitUsage
	}
	err := root.ExecuteContext(ctx)
	var code exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	}
	// Everything cobra itself refuses (unknown command, unknown flag, a bad
	// value, a stray argument) is a usage error.
	name := "sharechaos"
	if c, _, ferr := root.Find(args); ferr == nil && c != nil {
		name = c.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %v (see --help)\n", name, err)
	return verdict.ExitUsage
}

func newRoot(args []string) *cobra.Command {
	root := &cobra.Command{
		Use:           "sharechaos",
		Short:         "chaos and benchmarks for Kafka share groups with transactional acks (KIP-1289)",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
		Args:          noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
		Annotations: map[string]string{footerKey: envHelp + "\n\n" + exitCodes},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddGroup(&cobra.Group{ID: "main", Title: "Commands:"}, &cobra.Group{ID: "offline", Title: "Stored runs:"})
	for _, c := range []*cobra.Command{newRunCmd(args), newBenchCmd(args), newHuntCmd(), newConformanceCmd(), newClusterCmd()} {
		c.GroupID = "main"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newCheckCmd(), newReportCmd()} {
		c.GroupID = "offline"
		root.AddCommand(c)
	}
	root.AddCommand(newVersionCmd())
	root.SetUsageFunc(groupedUsage)
	return root
}

// noArgs refuses arguments with the words the tests and users know.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		if cmd.HasSubCommands() {
			return fmt.Errorf("unknown command %q", args[0])
		}
		return fmt.Errorf("unexpected argument %q (flags only)", args[0])
	}
	return nil
}

// oneDir takes exactly one run directory.
func oneDir(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one directory (a run's, or a standalone cluster's), got %d arguments", len(args))
	}
	return nil
}

// explicitlySet reports whether the command line gave the flag.
func explicitlySet(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}
