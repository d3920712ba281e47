package cell

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
)

// TestRepeatInjection: in a soak the fault acts again after each heal and
// the pause, never starting after the end; its report is every
// injection's, and each firing names its injection.
func TestRepeatInjection(t *testing.T) {
	var acts atomic.Int32
	var mu sync.Mutex
	var events []history.Event
	m := faults.Mechanism{Act: func(ctx context.Context, env faults.Env) error {
		acts.Add(1)
		env.Fired(history.Event{F: history.FFaultFired})
		time.Sleep(50 * time.Millisecond)
		return nil
	}}
	env := faults.Env{Name: "blip", Fired: func(e history.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }}
	start := time.Now()
	until := start.Add(600 * time.Millisecond)
	rep, err := repeatInjection(context.Background(), m, env, 100*time.Millisecond, until)
	if err != nil {
		t.Fatal(err)
	}
	// Each round is 50 ms of fault and 100 ms of pause: 4 rounds start
	// before 600 ms, the fifth would start at about 600 ms.
	if n := acts.Load(); n < 3 || n > 5 {
		t.Errorf("%d injections in 600 ms at one per 150 ms", n)
	}
	if time.Since(start) > 900*time.Millisecond {
		t.Errorf("an injection started after the end: returned after %s", time.Since(start))
	}
	if rep.Name != "blip" || len(events) != int(acts.Load()) {
		t.Errorf("report %+v, %d events for %d injections", rep, len(events), acts.Load())
	}
	for i, e := range events {
		if e.Attrs["injection"] != fmt.Sprint(i+1) {
			t.Errorf("event %d names injection %q", i, e.Attrs["injection"])
		}
	}
	acts.Store(0)
	if _, err := repeatInjection(context.Background(), m, env, time.Millisecond, time.Time{}); err != nil || acts.Load() != 1 {
		t.Errorf("no soak: %d injections (err %v), want exactly one", acts.Load(), err)
	}
}
