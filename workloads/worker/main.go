// Package worker is the worker process's main: the CTP loop (workloads/ctp)
// with the transactional realizations (workloads/kip1289) and our share
// consumer (workloads/ctp/scsource) wired in. The orchestrator starts it as
// a child role of the same binary (internal/role) with a ctp.WorkerConfig
// file; the orchestrator's side of workers is suites/workerset.
package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
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
//
// The argument "-" is a worker on another host, started through a command
// (suites/workerset's Remote): its config is the first line of stdin, its
// client's secrets (clientcfg.Secrets: the TLS files' contents, the SASL
// password) the second, kept in memory; the end of stdin stops it as
// SIGTERM does (a signal does not cross ssh or kubectl exec), and stdout
// carries Hello, then its history (history_path "-").
func Main(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "worker: want one argument, the config file (or -: the config on stdin)")
		return verdict.ExitUsage
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, os.Interrupt)
	defer cancel()
	var b []byte
	var secrets *clientcfg.Secrets
	var err error
	if args[0] == "-" {
		b, secrets, err = readRemoteConfig(cancel)
	} else {
		b, err = os.ReadFile(args[0])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return verdict.ExitUsage
	}
	var cfg ctp.WorkerConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "worker: parse %s: %v\n", args[0], err)
		return verdict.ExitUsage
	}
	cfg.Client.Secrets = secrets
	if cfg.Stepped {
		fmt.Fprintln(os.Stderr, "worker: a stepped config is for worker processes of other clients: the bench steps Go workers in process")
		return verdict.ExitUsage
	}
	if args[0] == "-" {
		if err := json.NewEncoder(os.Stdout).Encode(Hello{PID: os.Getpid()}); err != nil {
			fmt.Fprintln(os.Stderr, "worker: say hello:", err)
			return 1
		}
	}
	if err := ctp.RunWorker(ctx, cfg, Deps()); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// Hello is a remote worker's first line on stdout: its process id on its
// host, which the orchestrator's signals (resume, stop) name.
type Hello struct {
	PID int `json:"pid"`
}

// readRemoteConfig reads the config line and the secrets line from stdin,
// then watches stdin in the background: its end calls stop.
func readRemoteConfig(stop func()) ([]byte, *clientcfg.Secrets, error) {
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return nil, nil, fmt.Errorf("read the config from stdin: %w", err)
	}
	raw, err := in.ReadBytes('\n')
	if err != nil {
		return nil, nil, fmt.Errorf("read the client's secrets from stdin: %w", err)
	}
	var secrets clientcfg.Secrets
	if err := json.Unmarshal(raw, &secrets); err != nil {
		return nil, nil, fmt.Errorf("parse the client's secrets: %w", err)
	}
	go func() {
		_, _ = io.Copy(io.Discard, in)
		stop()
	}()
	return line, &secrets, nil
}
