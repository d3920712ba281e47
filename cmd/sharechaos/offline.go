package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sharechaos bench: not available in this build yet")
	return verdict.ExitUsage
}

func checkCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sharechaos check: not available in this build yet")
	return verdict.ExitUsage
}

func reportCmd(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sharechaos report: not available in this build yet")
	return verdict.ExitUsage
}
