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
