// Package workerset is the orchestrator's side of a cell's worker processes:
// it starts each slot's worker (the same binary in its worker role,
// workloads/worker), replaces one that dies with the slot's next
// incarnation, stops them all, and gives the orchestrator's half of a worker
// fault (faults.Workers) its view of the armed one.
package workerset

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/sharechaos/sharechaos/faults"
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

// Config is what a cell's workers run with.
type Config struct {
	// Base is every worker's config; each gets its slot, incarnation,
	// transactional id, history path and arm.
	Base ctp.WorkerConfig
	// Dir is the cell directory (histories/, workers/).
	Dir   string
	Slots int
	// ArmSlot is the armed slot (0: none); only its first incarnation is
	// armed with Arm, the other slots' first incarnations with its
	// follower's half (ctp.Arm.Follower).
	ArmSlot int
	Arm     ctp.Arm
	// FreshID gives replacements a transactional id of their own.
	FreshID  bool
	Topology ctp.Topology
	// Client is the workers' client (Clients; "": the default).
	Client string
	// Remote runs the workers on other hosts (nil: children of this
	// process).
	Remote *Remote
}

// Set runs a cell's worker processes and replaces each one that ends (a
// crash point, a fence, or a graceful stop mid-run: the term fault's rolling
// deploy, whose worker exits 0, or 143 for the JVM's SIGTERM) with a new
// incarnation of the same slot; how a worker ended is no harness error, only
// a slot that keeps ending (maxIncarnations) is. Only the
// first incarnation of the armed slot is armed; replacements never are.
type Set struct {
	Config

	mu      sync.Mutex
	running map[int]*exec.Cmd
	// current is each slot's newest incarnation: only its exit is replaced (a
	// zombie's replacement may start while the zombie still lives).
	current map[int]int
	procs   map[string]faults.Process // worker name -> its process
	// stdins are the remote workers' stdins by slot*1000+inc: closing one
	// stops that worker as SIGTERM stops a local one.
	stdins map[int]io.Closer
	// shift moves a slot to the next worker host after a death at start.
	shift    map[int]int
	stopping bool
	// stopped is closed by stop: a replacement waiting out its backoff
	// gives up.
	stopped  chan struct{}
	wg       sync.WaitGroup
	startErr error
}

func (ws *Set) Start() error {
	ws.stopped = make(chan struct{})
	ws.running = map[int]*exec.Cmd{}
	ws.current = map[int]int{}
	ws.procs = map[string]faults.Process{}
	ws.stdins = map[int]io.Closer{}
	ws.shift = map[int]int{}
	for _, d := range []string{"histories", "workers"} {
		if err := os.MkdirAll(filepath.Join(ws.Dir, d), 0o755); err != nil {
			return fmt.Errorf("start workers: %w", err)
		}
	}
	if ws.ArmSlot > 0 {
		// The armed slot starts first and the others once it holds its first
		// batch (or after headStart): in a small shape (few batches per
		// worker, more workers than batches) the armed worker could
		// otherwise see no batch at all and the fault never fire.
		if err := ws.launch(ws.ArmSlot, 1); err != nil {
			ws.Stop(10 * time.Second)
			return err
		}
		deadline := time.Now().Add(headStart)
		for time.Now().Before(deadline) && !ws.shows(ctp.WorkerName(ws.ArmSlot, 1), func(e history.Event) bool {
			return e.F == history.FPoll && e.Type == history.OK
		}) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for slot := 1; slot <= ws.Slots; slot++ {
		if slot == ws.ArmSlot {
			continue
		}
		if err := ws.launch(slot, 1); err != nil {
			ws.Stop(10 * time.Second)
			return err
		}
	}
	return nil
}

// FaultPending reports whether the armed incarnation fired a stall and has
// not yet ended the transaction after it (commit or abort returned) while it
// still runs: the drain must not end the cell there, or the graceful stop
// would cut the stall short and the race it exists for (the held batch
// committed while another worker holds its records) would never happen.
//
// A follower's hold (ctp.Arm.Follower) counts the same way: the records it
// holds may be done already (the stalled worker's acks took them, as
// lock-expiry-stale-acks shows without member tags), and what its own
// transaction then meets is part of the example.
func (ws *Set) FaultPending() bool {
	if ws.ArmSlot == 0 || !ws.Arm.Action.Stalls() {
		return false
	}
	if ws.stallPending(ws.ArmSlot) {
		return true
	}
	if _, ok := ws.Arm.Follower(); ok {
		for slot := 1; slot <= ws.Slots; slot++ {
			if slot != ws.ArmSlot && ws.stallPending(slot) {
				return true
			}
		}
	}
	return false
}

// stallPending: slot's first incarnation runs, fired its stall or hold, and
// has not yet ended the transaction after it.
func (ws *Set) stallPending(slot int) bool {
	name := ctp.WorkerName(slot, 1)
	ws.mu.Lock()
	_, running := ws.running[slot*1000+1]
	ws.mu.Unlock()
	if !running {
		return false
	}
	h, err := history.ReadFile(filepath.Join(ws.Dir, "histories", name+".jsonl"))
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
func (ws *Set) shows(worker string, match func(history.Event) bool) bool {
	h, err := history.ReadFile(filepath.Join(ws.Dir, "histories", worker+".jsonl"))
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

func (ws *Set) config(slot, inc int) ctp.WorkerConfig {
	c := ws.Base
	c.Slot, c.Incarnation = slot, inc
	c.TransactionalID = ws.Topology.TransactionalID(slot)
	if ws.FreshID && inc > 1 {
		c.TransactionalID = fmt.Sprintf("%s.%d", c.TransactionalID, inc)
	}
	c.HistoryPath = filepath.Join(ws.Dir, "histories", c.Name()+".jsonl")
	c.Arm = ctp.Arm{}
	switch {
	case slot == ws.ArmSlot && inc == 1:
		c.Arm = ws.Arm
	case inc == 1:
		// The other workers' half of the armed fault, if it has one
		// (ActionStallOverlap); replacements are never armed.
		c.Arm, _ = ws.Arm.Follower()
	}
	return c
}

func (ws *Set) launch(slot, inc int) error {
	cfg := ws.config(slot, inc)
	path := filepath.Join(ws.Dir, "workers", cfg.Name()+".json")
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("launch worker %s: %w", cfg.Name(), err)
	}
	log, err := os.Create(filepath.Join(ws.Dir, "workers", cfg.Name()+".log"))
	if err != nil {
		return fmt.Errorf("launch worker %s: %w", cfg.Name(), err)
	}
	if ws.Remote != nil {
		return ws.launchRemote(slot, inc, cfg, log)
	}
	cmd, err := command(ws.Client, path)
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
	ws.started(slot, inc, cmd, faults.LocalProcess(cmd.Process.Pid))
	go ws.await(slot, inc, cmd, log, func() error { return cmd.Wait() })
	return nil
}

// started records a launched incarnation; ws.mu is held.
func (ws *Set) started(slot, inc int, cmd *exec.Cmd, p faults.Process) {
	ws.running[slot*1000+inc] = cmd
	ws.current[slot] = inc
	ws.procs[ctp.WorkerName(slot, inc)] = p
	ws.wg.Add(1)
}

// launchRemote starts incarnation inc of slot on its worker host through
// Remote: the config on its stdin (kept open: closing it stops the worker),
// its stdout relayed into the local history file, its stderr into log.
func (ws *Set) launchRemote(slot, inc int, cfg ctp.WorkerConfig, log *os.File) error {
	ws.mu.Lock()
	host := ws.Remote.Hosts[(slot-1+ws.shift[slot])%len(ws.Remote.Hosts)]
	ws.mu.Unlock()
	fail := func(err error) error {
		log.Close()
		return fmt.Errorf("launch worker %s on %s: %w", cfg.Name(), host, err)
	}
	cmd, err := ws.Remote.workerCommand(host)
	if err != nil {
		return fail(err)
	}
	cmd.Stderr = log
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fail(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	// The TLS files and the password do not exist on the host: their
	// contents cross on stdin, after the config, and stay in the worker's
	// memory.
	secrets, err := cfg.Client.ReadSecrets()
	if err != nil {
		return fail(err)
	}
	local := cfg.HistoryPath
	cfg.HistoryPath = history.Stdout // relayed back on its stdout
	line, _ := json.Marshal(cfg)
	secretLine, _ := json.Marshal(secrets)
	line = append(append(line, '\n'), secretLine...)
	fmt.Fprintf(log, "sharechaos: worker %s on host %s\n", cfg.Name(), host)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.stopping {
		log.Close()
		return nil
	}
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	p := &remoteProcess{r: ws.Remote, host: host}
	ws.started(slot, inc, cmd, p)
	ws.stdins[slot*1000+inc] = stdin
	relayed := make(chan error, 1)
	go func() { relayed <- relayHistory(stdout, p, local) }()
	// A host that is gone fails this write or the relay; either way the
	// command ends and the slot is replaced like a crashed worker.
	_, _ = stdin.Write(append(line, '\n'))
	go ws.await(slot, inc, cmd, log, func() error {
		rerr := <-relayed
		werr := cmd.Wait()
		if werr == nil && rerr != nil {
			return rerr
		}
		return werr
	})
	return nil
}

// await waits for an incarnation to end and replaces it, unless the set is
// stopping or a newer incarnation took the slot.
func (ws *Set) await(slot, inc int, cmd *exec.Cmd, log *os.File, wait func() error) {
	launched := time.Now()
	func() {
		defer ws.wg.Done()
		err := wait()
		log.Close()
		ws.mu.Lock()
		stopping := ws.stopping
		delete(ws.running, slot*1000+inc)
		delete(ws.stdins, slot*1000+inc)
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
			// On worker hosts, one that cannot start a worker (gone, or
			// its binary missing) gives the slot to the next host.
			ws.mu.Lock()
			ws.shift[slot]++
			ws.mu.Unlock()
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
}

// process is a worker incarnation's process (nil if never started).
func (ws *Set) process(slot, inc int) faults.Process {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.procs[ctp.WorkerName(slot, inc)]
}

// supersede starts the next incarnation of slot while the current one still
// runs (stopped): the zombie-fenced case.
func (ws *Set) supersede(slot int) error {
	ws.mu.Lock()
	inc := ws.current[slot]
	ws.mu.Unlock()
	return ws.launch(slot, inc+1)
}

// Failure returns a harness failure (workers that cannot be kept running).
func (ws *Set) Failure() error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.startErr
}

// Stop asks every worker to stop (SIGTERM: abort the open transaction, release
// the last batch, leave the group) and SIGKILLs those still running after grace.
func (ws *Set) Stop(grace time.Duration) {
	ws.mu.Lock()
	if !ws.stopping && ws.stopped != nil {
		close(ws.stopped)
	}
	ws.stopping = true
	var remote []faults.Process
	for key, cmd := range ws.running {
		if stdin, ok := ws.stdins[key]; ok {
			// A remote worker stops at the end of its stdin; a stopped
			// zombie must run to see it.
			_ = stdin.Close()
			remote = append(remote, ws.procs[ctp.WorkerName(key/1000, key%1000)])
			continue
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Process.Signal(syscall.SIGCONT) // a stopped zombie must run to see it
	}
	ws.mu.Unlock()
	for _, p := range remote {
		_ = p.Signal(syscall.SIGCONT)
	}
	done := make(chan struct{})
	go func() { ws.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	ws.mu.Lock()
	remote = remote[:0]
	for key, cmd := range ws.running {
		if _, ok := ws.stdins[key]; ok {
			remote = append(remote, ws.procs[ctp.WorkerName(key/1000, key%1000)])
			// The command's whole group: sh and the ssh (or docker exec) under it.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			continue
		}
		_ = cmd.Process.Kill()
	}
	ws.mu.Unlock()
	for _, p := range remote {
		_ = p.Signal(syscall.SIGKILL)
	}
	<-done
}

// Armed is the set as the orchestrator's half of a worker fault sees it
// (faults.Workers), its events going to timeline.
func (ws *Set) Armed(timeline *history.Recorder) faults.Workers {
	return armedWorkers{ws: ws, timeline: timeline}
}

type armedWorkers struct {
	ws       *Set
	timeline *history.Recorder
}

func (a armedWorkers) ArmedProcess() faults.Process { return a.ws.process(a.ws.ArmSlot, 1) }
func (a armedWorkers) Replace() error               { return a.ws.supersede(a.ws.ArmSlot) }
func (a armedWorkers) Record(e history.Event)       { _ = a.timeline.Record(e) }

// ReplacementReady reads the armed slot's newest incarnation's history for
// its producer's InitProducerId.
func (a armedWorkers) ReplacementReady() bool {
	a.ws.mu.Lock()
	inc := a.ws.current[a.ws.ArmSlot]
	a.ws.mu.Unlock()
	if inc < 2 {
		return false
	}
	return a.ws.shows(ctp.WorkerName(a.ws.ArmSlot, inc), func(e history.Event) bool {
		return e.F == history.FInitProducer && e.Type == history.OK
	})
}

// RunningPIDs are the process ids of the workers running now, by slot.
func (ws *Set) RunningPIDs() []int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var pids []int
	for slot := 1; slot <= ws.Slots; slot++ {
		key := slot*1000 + ws.current[slot]
		if _, remote := ws.stdins[key]; remote {
			continue // on another host: not this machine's memory
		}
		if cmd, ok := ws.running[key]; ok && cmd.Process != nil {
			pids = append(pids, cmd.Process.Pid)
		}
	}
	return pids
}
