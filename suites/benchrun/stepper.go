package benchrun

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/worker"
)

// stepper is one bench worker's loop as the driver steps it: a Go worker in
// this process (ctp.Worker), or a worker process of another client
// (processStepper), so one driver and one schedule measure both clients.
type stepper interface {
	Step(ctx context.Context) (ctp.StepResult, error)
	// Name and TxnSeq name the transaction of the last step (e2e_latency
	// finds its outputs by them).
	Name() string
	TxnSeq() int64
	Close(err error)
}

// openStepper opens cfg's worker on client (workerset.Clients).
func openStepper(ctx context.Context, client string, cfg ctp.WorkerConfig) (stepper, error) {
	if client == "" || client == workerset.ClientGo {
		octx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		return ctp.NewWorker(octx, cfg, worker.Deps())
	}
	c, ok := workerset.LookupClient(client)
	if !ok {
		return nil, fmt.Errorf("client %q: want one of %v", client, workerset.ClientNames())
	}
	return startProcessStepper(c, cfg)
}

// processStepper is a worker process of another client started with a
// stepped config (ctp.WorkerConfig.Stepped): a "step" line on its stdin
// runs one step, answered by one JSON line (ctp.SteppedAnswer) on stdout.
type processStepper struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	// answers carries stdout's lines; closed when the process closes it.
	answers chan string
	// pending counts the steps asked whose answers were not read: a step
	// abandoned by its context still answers, and that answer must not be
	// taken for the next step's.
	pending int
	txn     int64
	log     *os.File
	exited  chan struct{}
}

// startProcessStepper writes cfg (stepped) next to its history and starts
// c's worker on it, its stderr into a log beside the config.
func startProcessStepper(c workerset.Client, cfg ctp.WorkerConfig) (*processStepper, error) {
	cfg.Stepped = true
	dir := filepath.Join(filepath.Dir(filepath.Dir(cfg.HistoryPath)), "workers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("start worker %s: %w", cfg.Name(), err)
	}
	path := filepath.Join(dir, cfg.Name()+".json")
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, fmt.Errorf("start worker %s: %w", cfg.Name(), err)
	}
	cmd, err := c.Command(path)
	if err != nil {
		return nil, fmt.Errorf("start worker %s: %w", cfg.Name(), err)
	}
	log, err := os.Create(filepath.Join(dir, cfg.Name()+".log"))
	if err != nil {
		return nil, fmt.Errorf("start worker %s: %w", cfg.Name(), err)
	}
	cmd.Stderr = log
	in, err := cmd.StdinPipe()
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("start worker %s: %w", cfg.Name(), err)
	}
	// A pipe of our own, not StdoutPipe: Wait closes StdoutPipe's read end
	// as soon as the process exits, which can drop the last lines it wrote,
	// its final answer among them (seen in CI: "exited" instead of the
	// worker's error). This one is read to its end whenever Wait returns.
	out, w, err := os.Pipe()
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("start worker %s: %w", cfg.Name(), err)
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close() // the child holds its own copy
	if err != nil {
		out.Close()
		log.Close()
		return nil, fmt.Errorf("start worker %s: %w", cfg.Name(), err)
	}
	s := &processStepper{name: cfg.Name(), cmd: cmd, in: in, answers: make(chan string, 4), log: log, exited: make(chan struct{})}
	go func() {
		defer close(s.answers)
		defer out.Close()
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			// Only answers are JSON objects; anything else a client
			// library prints on stdout is not for us.
			if line := sc.Text(); strings.HasPrefix(line, "{") {
				s.answers <- line
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(s.exited)
	}()
	return s, nil
}

func (s *processStepper) Name() string  { return s.name }
func (s *processStepper) TxnSeq() int64 { return s.txn }

// Step asks for one step and waits for its answer (after the answers of
// steps abandoned before it).
func (s *processStepper) Step(ctx context.Context) (ctp.StepResult, error) {
	if _, err := io.WriteString(s.in, ctp.StepCommand+"\n"); err != nil {
		return ctp.StepResult{}, fmt.Errorf("worker %s: ask a step: %w", s.name, err)
	}
	s.pending++
	for s.pending > 0 {
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return ctp.StepResult{}, ctx.Err()
		case line, ok = <-s.answers:
		}
		if !ok {
			return ctp.StepResult{}, fmt.Errorf("worker %s: exited (its log: %s)", s.name, s.log.Name())
		}
		s.pending--
		if s.pending > 0 {
			continue
		}
		var a ctp.SteppedAnswer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			return ctp.StepResult{}, fmt.Errorf("worker %s: answer %q: %w", s.name, line, err)
		}
		if a.Error != "" {
			return ctp.StepResult{}, fmt.Errorf("worker %s: %s", s.name, a.Error)
		}
		s.txn = a.Txn
		return a.Result(), nil
	}
	return ctp.StepResult{}, errors.New("unreachable")
}

// closeWait bounds a worker's graceful stop (its clients' close) before it
// is killed.
const closeWait = 30 * time.Second

// Close asks the worker to stop and waits for it to close its clients
// (releasing what its share consumer holds); err is why (unused: the
// worker writes its own stop event).
func (s *processStepper) Close(error) {
	_, _ = io.WriteString(s.in, ctp.StopCommand+"\n")
	_ = s.in.Close()
	select {
	case <-s.exited:
	case <-time.After(closeWait):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}
