package faults

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// Workers is what the orchestrator's half of a worker fault may do to the
// cell's workers (the runner's worker set implements it).
type Workers interface {
	// ArmedProcess is the armed incarnation's process, nil before it started.
	ArmedProcess() Process
	// Replace starts the armed slot's next incarnation now, with the same
	// transactional id, while the armed one still lives.
	Replace() error
	// ReplacementReady reports whether the replacement's history shows its
	// producer initialized (history.FInitProducer ok): from then on the
	// transactional id is the replacement's and the armed one is fenced.
	ReplacementReady() bool
	// Record appends an event to the cell's timeline.
	Record(history.Event)
}

// Conduct is the orchestrator's half of a worker fault: it runs beside the
// load once the armed worker exists, and returns when its part is done.
type Conduct func(ctx context.Context, ws Workers, lock time.Duration) error

// Zombie is ORACLE.md case 5's choreography as the KIP tells it: the armed
// worker A SIGSTOPs itself mid-transaction, before its commit (its
// connections stay up); once it is stopped, B starts with the same
// transactional id; as soon as B's InitProducerId is done (B's history shows
// its producer ready: A is fenced and A's transaction aborted), A is resumed,
// goes on to commit, and must get PRODUCER_FENCED. Resuming A only after the
// drain, or after its locks expired, would test a different thing (a worker
// that wakes up to a finished world); resuming it before B initialized would
// let A commit legitimately. If B never initializes within waitReady, A is
// resumed anyway and the cell's evidence (no replacement init before the
// resume) makes it UNKNOWN.
func Zombie(ctx context.Context, ws Workers, lock time.Duration) error {
	p := ws.ArmedProcess()
	if p == nil {
		return fmt.Errorf("zombie: the armed worker never started")
	}
	pid := p.PID()
	for !p.Stopped() {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(50 * time.Millisecond):
		}
	}
	ws.Record(history.Event{Type: history.Info, F: history.FZombieStopped, Attrs: map[string]string{"pid": strconv.Itoa(pid)}})
	if err := ws.Replace(); err != nil {
		return fmt.Errorf("zombie: start replacement: %w", err)
	}
	ws.Record(history.Event{Type: history.Info, F: history.FZombieReplaced})
	deadline := time.Now().Add(waitReady(lock))
	for !ws.ReplacementReady() && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(20 * time.Millisecond):
		}
	}
	_ = p.Signal(syscall.SIGCONT)
	ws.Record(history.Event{Type: history.Info, F: history.FZombieResumed, Attrs: map[string]string{"pid": strconv.Itoa(pid)}})
	return nil
}

// waitReady bounds the wait for the replacement's InitProducerId: a
// replacement that cannot initialize within two locks is a cell that tests
// nothing, and the zombie must not stay frozen past the drain.
func waitReady(lock time.Duration) time.Duration { return 2 * lock }
