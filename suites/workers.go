package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// maxIncarnations bounds replacements per slot: a worker that keeps dying at
// start (a bad config, an unreachable broker) must not fork forever.
const maxIncarnations = 20

// quickDeath is how soon after its start a worker's death counts as dying
// at start (relaunched after relaunchBackoff, not at once).
const quickDeath = 2 * time.Second

// relaunchBackoff is the wait before incarnation inc+1 of a slot whose
// incarnation inc died at start: 250 ms doubling to 4 s, so the 20
// incarnations last about a minute, longer than a killed broker is down.
func relaunchBackoff(inc int) time.Duration {
	d := 250 * time.Millisecond << min(inc-1, 4)
	return min(d, 4*time.Second)
}

// workerSet runs a cell's worker processes and replaces each one that dies
// (a crash point, a fence) with a new incarnation of the same slot. Only the
// first incarnation of the armed slot is armed; replacements never are.
type workerSet struct {
	base     ctp.WorkerConfig
	dir      string // the cell directory
	slots    int
	armSlot  int
	arm      ctp.Arm
	freshID  bool
	topology ctp.Topology
	client   string // ClientGo or ClientJava (client.go)

	mu      sync.Mutex
	running map[int]*exec.Cmd
	// current is each slot's newest incarnation: only its exit is replaced (a
	// zombie's replacement may start while the zombie still lives).
	current  map[int]int
	pids     map[string]int // worker name -> pid
	stopping bool
	// stopped is closed by stop: a replacement waiting out its backoff
	// gives up.
	stopped  chan struct{}
	wg       sync.WaitGroup
	startErr error
}

func (ws *workerSet) start() error {
	ws.stopped = make(chan struct{})
	ws.running = map[int]*exec.Cmd{}
	ws.current = map[int]int{}
	ws.pids = map[string]int{}
	for _, d := range []string{"histories", "workers"} {
		if err := os.MkdirAll(filepath.Join(ws.dir, d), 0o755); err != nil {
			return fmt.Errorf("start workers: %w", err)
		}
	}
	if ws.armSlot > 0 {
		// The armed slot starts first and the others once it holds its first
		// batch (or after headStart): in a small shape (few batches per
		// worker, more workers than batches) the armed worker could
		// otherwise see no batch at all and the fault never fire.
		if err := ws.launch(ws.armSlot, 1); err != nil {
			ws.stop(10 * time.Second)
			return err
		}
		deadline := time.Now().Add(headStart)
		for time.Now().Before(deadline) && !ws.shows(ctp.WorkerName(ws.armSlot, 1), func(e history.Event) bool {
			return e.F == history.FPoll && e.Type == history.OK
		}) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for slot := 1; slot <= ws.slots; slot++ {
		if slot == ws.armSlot {
			continue
		}
		if err := ws.launch(slot, 1); err != nil {
			ws.stop(10 * time.Second)
			return err
		}
	}
	return nil
}

// faultPending reports whether the armed incarnation fired a stall and has
// not yet ended the transaction after it (commit or abort returned) while it
// still runs: the drain must not end the cell there, or the graceful stop
// would cut the stall short and the race it exists for (the held batch
// committed while another worker holds its records) would never happen.
//
// A follower's hold (ctp.Arm.Follower) counts the same way: the records it
// holds may be done already (the stalled worker's acks took them, as
// lock-expiry-stale-acks shows without member tags), and what its own
// transaction then meets is part of the example.
func (ws *workerSet) faultPending() bool {
	if ws.armSlot == 0 || !ws.arm.Action.Stalls() {
		return false
	}
	if ws.stallPending(ws.armSlot) {
		return true
	}
	if _, ok := ws.arm.Follower(); ok {
		for slot := 1; slot <= ws.slots; slot++ {
			if slot != ws.armSlot && ws.stallPending(slot) {
				return true
			}
		}
	}
	return false
}

// stallPending: slot's first incarnation runs, fired its stall or hold, and
// has not yet ended the transaction after it.
func (ws *workerSet) stallPending(slot int) bool {
	name := ctp.WorkerName(slot, 1)
	ws.mu.Lock()
	_, running := ws.running[slot*1000+1]
	ws.mu.Unlock()
	if !running {
		return false
	}
	h, err := history.ReadFile(filepath.Join(ws.dir, "histories", name+".jsonl"))
	if err != nil {
		return false
	}
	fired := false
	for _, e := range h {
		switch {
		case e.F == history.FFaultFired:
			fired = true
		case fired && (e.F == history.FCommit || e.F == history.FAbort) && e.Type != history.Invoke:
			return false
		}
	}
	return fired
}

// headStart bounds how long the other slots wait for the armed one's first
// batch.
const headStart = 15 * time.Second

// shows reports whether worker's history so far has an event that match
// accepts.
func (ws *workerSet) shows(worker string, match func(history.Event) bool) bool {
	h, err := history.ReadFile(filepath.Join(ws.dir, "histories", worker+".jsonl"))
	if err != nil {
		return false
	}
	for _, e := range h {
		if match(e) {
			return true
		}
	}
	return false
}

func (ws *workerSet) config(slot, inc int) ctp.WorkerConfig {
	c := ws.base
	c.Slot, c.Incarnation = slot, inc
	c.TransactionalID = ws.topology.TransactionalID(slot)
	if ws.freshID && inc > 1 {
		c.TransactionalID = fmt.Sprintf("%s.%d", c.TransactionalID, inc)
	}
	c.HistoryPath = filepath.Join(ws.dir, "histories", c.Name()+".jsonl")
	c.Arm = ctp.Arm{}
	switch {
	case slot == ws.armSlot && inc == 1:
		c.Arm = ws.arm
	case inc == 1:
		// The other workers' half of the armed fault, if it has one
		// (ActionStallOverlap); replacements are never armed.
		c.Arm, _ = ws.arm.Follower()
	}
	return c
}

func (ws *workerSet) launch(slot, inc int) error {
	cfg := ws.config(slot, inc)
	path := filepath.Join(ws.dir, "workers", cfg.Name()+".json")
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("launch worker %s: %w", cfg.Name(), err)
	}
	log, err := os.Create(filepath.Join(ws.dir, "workers", cfg.Name()+".log"))
	if err != nil {
		return fmt.Errorf("launch worker %s: %w", cfg.Name(), err)
	}
	cmd, err := workerCommand(ws.client, path)
	if err != nil {
		log.Close()
		return fmt.Errorf("launch worker %s: %w", cfg.Name(), err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.stopping {
		log.Close()
		return nil
	}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("launch worker %s: %w", cfg.Name(), err)
	}
	ws.running[slot*1000+inc] = cmd
	ws.current[slot] = inc
	ws.pids[cfg.Name()] = cmd.Process.Pid
	ws.wg.Add(1)
	launched := time.Now()
	go func() {
		defer ws.wg.Done()
		err := cmd.Wait()
		log.Close()
		ws.mu.Lock()
		stopping := ws.stopping
		delete(ws.running, slot*1000+inc)
		superseded := ws.current[slot] != inc
		ws.mu.Unlock()
		if stopping || superseded {
			return
		}
		if inc >= maxIncarnations {
			ws.mu.Lock()
			ws.startErr = fmt.Errorf("worker slot %d died %d times (last: %v); see %s", slot, inc, err, log.Name())
			ws.mu.Unlock()
			return
		}
		// A worker that dies right after its start (its transaction
		// coordinator's broker is down, so InitProducerId fails at once)
		// would burn every incarnation within a second: its replacement
		// waits, longer each time, so a broker fault of seconds costs a few
		// incarnations, not all of them. A crash point's replacement (the
		// worker lived) starts at once.
		if lived := time.Since(launched); lived < quickDeath {
			select {
			case <-time.After(relaunchBackoff(inc)):
			case <-ws.stopped:
				return
			}
		}
		ws.mu.Lock()
		stopping = ws.stopping
		ws.mu.Unlock()
		if stopping {
			return
		}
		if lerr := ws.launch(slot, inc+1); lerr != nil {
			ws.mu.Lock()
			ws.startErr = lerr
			ws.mu.Unlock()
		}
	}()
	return nil
}

// pid returns the pid of a worker incarnation (0 if never started).
func (ws *workerSet) pid(slot, inc int) int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.pids[ctp.WorkerName(slot, inc)]
}

// supersede starts the next incarnation of slot while the current one still
// runs (stopped): the zombie-fenced case.
func (ws *workerSet) supersede(slot int) error {
	ws.mu.Lock()
	inc := ws.current[slot]
	ws.mu.Unlock()
	return ws.launch(slot, inc+1)
}

// failure returns a harness failure (workers that cannot be kept running).
func (ws *workerSet) failure() error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.startErr
}

// stop asks every worker to stop (SIGTERM: abort the open transaction, release
// the last batch, leave the group) and SIGKILLs those still running after grace.
func (ws *workerSet) stop(grace time.Duration) {
	ws.mu.Lock()
	if !ws.stopping && ws.stopped != nil {
		close(ws.stopped)
	}
	ws.stopping = true
	for _, cmd := range ws.running {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Process.Signal(syscall.SIGCONT) // a stopped zombie must run to see it
	}
	ws.mu.Unlock()
	done := make(chan struct{})
	go func() { ws.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	ws.mu.Lock()
	for _, cmd := range ws.running {
		_ = cmd.Process.Kill()
	}
	ws.mu.Unlock()
	<-done
}

// RunWorkerRole is the worker child's main: it reads its config file and runs
// the loop until SIGTERM.
func RunWorkerRole(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "worker: want one argument, the config file")
		return 64
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 64
	}
	var cfg ctp.WorkerConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "worker: parse %s: %v\n", args[0], err)
		return 64
	}
	ctx, cancel := signalContext()
	defer cancel()
	if err := ctp.RunWorker(ctx, cfg, workerDeps); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// armedWorkers is the worker set as the orchestrator's half of a worker fault
// sees it (faults.Workers).
type armedWorkers struct {
	ws       *workerSet
	timeline *history.Recorder
}

func (a armedWorkers) ArmedPID() int          { return a.ws.pid(a.ws.armSlot, 1) }
func (a armedWorkers) Replace() error         { return a.ws.supersede(a.ws.armSlot) }
func (a armedWorkers) Record(e history.Event) { _ = a.timeline.Record(e) }

// ReplacementReady reads the armed slot's newest incarnation's history for
// its producer's InitProducerId.
func (a armedWorkers) ReplacementReady() bool {
	a.ws.mu.Lock()
	inc := a.ws.current[a.ws.armSlot]
	a.ws.mu.Unlock()
	if inc < 2 {
		return false
	}
	return a.ws.shows(ctp.WorkerName(a.ws.armSlot, inc), func(e history.Event) bool {
		return e.F == history.FInitProducer && e.Type == history.OK
	})
}
