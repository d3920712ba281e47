package suites

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

// runZombie plays the orchestrator's part of zombie-fenced (ORACLE.md case 5):
// the armed worker A SIGSTOPs itself mid-transaction (its connections stay up,
// so its records come back only when their locks expire); once it is stopped,
// B starts with the same transactional id (its InitProducerId fences A and
// aborts A's transaction); after the lock has expired, A is resumed and must
// find itself fenced.
func (r *cellRun) runZombie(ctx context.Context, ws *workerSet) error {
	pid := ws.pid(ws.armSlot, 1)
	if pid == 0 {
		return fmt.Errorf("zombie: armed worker w%d.1 never started", ws.armSlot)
	}
	for !processStopped(pid) {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(50 * time.Millisecond):
		}
	}
	_ = r.timeline.Record(history.Event{Type: history.Info, F: "zombie-stopped", Attrs: map[string]string{"pid": strconv.Itoa(pid)}})
	if err := ws.supersede(ws.armSlot); err != nil {
		return fmt.Errorf("zombie: start replacement: %w", err)
	}
	_ = r.timeline.Record(history.Event{Type: history.Info, F: "zombie-replaced", Attrs: map[string]string{"slot": strconv.Itoa(ws.armSlot)}})
	select {
	case <-ctx.Done():
	case <-time.After(r.o.Lock + 3*time.Second):
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Signal(syscall.SIGCONT)
	}
	_ = r.timeline.Record(history.Event{Type: history.Info, F: "zombie-resumed", Attrs: map[string]string{"pid": strconv.Itoa(pid)}})
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
