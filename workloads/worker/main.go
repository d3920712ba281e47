// Package worker is the worker process's main: the CTP loop (workloads/ctp)
// with the transactional realizations (workloads/kip1289) and our share
// consumer (workloads/ctp/scsource) wired in. The orchestrator starts it as
// a child role of the same binary (internal/role) with a ctp.WorkerConfig
// file; the orchestrator's side of workers is suites/workerset.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/scsource"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// Role is the worker process's child role (internal/role): the
// orchestrator starts the running binary with it, and the binary's main
// dispatches to Main.
const Role = "worker"

// Deps are what a worker is built with: every realization of the
// transactional mode and our share consumer. The worker process and the
// bench's in-process workers both use them.
func Deps() ctp.Deps {
	return ctp.Deps{NewTxnAcker: kip1289.NewTxnAcker, OpenSharechaos: scsource.Open, ProducerOpts: kip1289.ProducerOpts,
		CheckConfig: kip1289.CheckWorker}
}

// Main reads its one argument, the config file, and runs the loop until
// SIGTERM or SIGINT. It returns the process's exit code: 64 for a bad
// argument or config, 1 when the loop failed.
func Main(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "worker: want one argument, the config file")
		return verdict.ExitUsage
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return verdict.ExitUsage
	}
	var cfg ctp.WorkerConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "worker: parse %s: %v\n", args[0], err)
		return verdict.ExitUsage
	}
	if cfg.Stepped {
		fmt.Fprintln(os.Stderr, "worker: a stepped config is for worker processes of other clients: the bench steps Go workers in process")
		return verdict.ExitUsage
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, os.Interrupt)
	defer cancel()
	if err := ctp.RunWorker(ctx, cfg, Deps()); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}
