package faults

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// Workers is what the orchestrator's half of a worker fault may do to the
// cell's workers (the runner's worker set implements it).
type Workers interface {
	// ArmedPID is the armed incarnation's process id, 0 before it started.
	ArmedPID() int
	// Replace starts the armed slot's next incarnation now, with the same
	// transactional id, while the armed one still lives.
	Replace() error
	// Record appends an event to the cell's timeline.
	Record(history.Event)
}

// Conduct is the orchestrator's half of a worker fault: it runs beside the
// load once the armed worker exists, and returns when its part is done.
type Conduct func(ctx context.Context, ws Workers, lock time.Duration) error

// Zombie is ORACLE.md case 5's choreography: the armed worker A SIGSTOPs
// itself mid-transaction (its connections stay up, so its records come back
// only when their locks expire); once it is stopped, B starts with the same
// transactional id (its InitProducerId fences A and aborts A's transaction);
// after the lock has expired, A is resumed and must find itself fenced.
func Zombie(ctx context.Context, ws Workers, lock time.Duration) error {
	pid := ws.ArmedPID()
	if pid == 0 {
		return fmt.Errorf("zombie: the armed worker never started")
	}
	for !processStopped(pid) {
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
	select {
	case <-ctx.Done():
	case <-time.After(lock + 3*time.Second):
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Signal(syscall.SIGCONT)
	}
	ws.Record(history.Event{Type: history.Info, F: history.FZombieResumed, Attrs: map[string]string{"pid": strconv.Itoa(pid)}})
	return nil
}

// processStopped reports whether pid is in state T (stopped by a signal).
func processStopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "T")
}
