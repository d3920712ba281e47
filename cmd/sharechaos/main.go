// Command sharechaos is a chaos and benchmark suite for Apache Kafka share
// groups with transactional acknowledgements (KIP-1289).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/sharechaos/sharechaos/suites"
)

func main() {
	// The hidden child roles (worker processes, the embedded broker) come
	// first: they are this binary re-executed, and never see the CLI.
	if code, ok := suites.RunChildRole(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

// mainCode runs the command line args and returns the process's exit code.
func mainCode(args []string, stdout, stderr io.Writer) int {
	ctx, stop := interruptContext(stderr)
	defer stop()
	return execute(ctx, args, stdout, stderr)
}

// interruptContext is cancelled by the first Ctrl-C (or SIGTERM): the run then
// stops its workers and cluster and writes what it recorded. A second Ctrl-C
// exits at once; child processes still die with us (Pdeathsig).
func interruptContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
		fmt.Fprintln(stderr, "\nsharechaos: interrupted; stopping workers and cluster, writing what was recorded (Ctrl-C again to quit at once)")
		cancel()
		<-ch
		fmt.Fprintln(stderr, "sharechaos: quitting now")
		os.Exit(130)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
