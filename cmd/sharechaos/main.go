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

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites"
)

const usage = `sharechaos: chaos and benchmarks for Kafka share groups with transactional acks (KIP-1289)

Usage:
  sharechaos run    [flags]   run a scenario matrix and judge it (loss, duplicates, ...)
  sharechaos bench  [flags]   compare the commit latency of the ack modes
  sharechaos check  DIR       re-check a stored run offline
  sharechaos report DIR       rewrite a stored run's summary.md, report.html, junit.xml
  sharechaos cluster up|down|fault   a standalone docker cluster for --backend external

Run 'sharechaos COMMAND --help' for the flags of a command.

Exit codes: 0 PASS, 1 ANOMALY, 2 UNKNOWN, 3 THRESHOLD-FAILED, 4 HARNESS-ERROR, 64 usage error.
`

func main() {
	if code, ok := suites.RunChildRole(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

func mainCode(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return verdict.ExitUsage
	}
	ctx, stop := interruptContext(stderr)
	defer stop()
	switch args[0] {
	case "run":
		return runCmd(ctx, args[1:], stdout, stderr)
	case "bench":
		return benchCmd(ctx, args[1:], stdout, stderr)
	case "check":
		return checkCmd(ctx, args[1:], stdout, stderr)
	case "report":
		return reportCmd(args[1:], stdout, stderr)
	case "cluster":
		return clusterCmd(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "sharechaos: unknown command %q\n\n%s", args[0], usage)
	return verdict.ExitUsage
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
