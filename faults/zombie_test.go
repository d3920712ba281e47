package faults

import (
	"context"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// fakeWorkers is a zombie's world: a real process to freeze and resume, and
// a replacement whose producer becomes ready after ready.
type fakeWorkers struct {
	pid      int
	ready    time.Duration
	mu       sync.Mutex
	replaced time.Time
	events   []history.Event
}

func (f *fakeWorkers) ArmedProcess() Process { return LocalProcess(f.pid) }
func (f *fakeWorkers) Replace() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replaced = time.Now()
	return nil
}
func (f *fakeWorkers) ReplacementReady() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.replaced.IsZero() && time.Since(f.replaced) >= f.ready
}
func (f *fakeWorkers) Record(e history.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e.TS = time.Now().UnixNano()
	f.events = append(f.events, e)
}

// Case 5 as the KIP tells it: the zombie is resumed right after its
// replacement's InitProducerId, not after a lock or the drain.
func TestZombieResumesOnceTheReplacementIsReady(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	ws := &fakeWorkers{pid: cmd.Process.Pid, ready: 300 * time.Millisecond}
	began := time.Now()
	if err := Zombie(context.Background(), ws, time.Minute); err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	var names []string
	for _, e := range ws.events {
		names = append(names, e.F)
	}
	want := []string{history.FZombieStopped, history.FZombieReplaced, history.FZombieResumed}
	if len(names) != 3 || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Fatalf("events %v, want %v", names, want)
	}
	if took < ws.ready || took > 10*time.Second {
		t.Errorf("resumed after %s: want right after the replacement was ready (%s), long before the lock (1m)", took, ws.ready)
	}
	deadline := time.Now().Add(5 * time.Second)
	for LocalProcess(cmd.Process.Pid).Stopped() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if LocalProcess(cmd.Process.Pid).Stopped() {
		t.Error("the zombie is still stopped after its resume")
	}
}
