package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// revision is set by the Makefile (-ldflags -X main.revision=...) for the
// builds Go cannot stamp itself: a git worktree's .git is a file, and Go's
// VCS stamping only recognises a .git directory.
var revision string

// versionLine is the module version and the VCS revision the binary was
// built from ("(devel)" and no revision under go run or go test).
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "sharechaos (no build information)"
	}
	line := "sharechaos " + bi.Main.Version
	var rev, when, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		rev = revision
	}
	if rev != "" {
		line += " revision " + rev
		if modified == "true" {
			line += " (modified)"
		}
		if when != "" {
			line += " " + when
		}
	}
	return line + " " + bi.GoVersion
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print the module version and VCS revision",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}
