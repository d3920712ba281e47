package faults

import (
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// fired records that a fault acted: when, where and what it did. at is the
// moment of the action (not of the record), so the timeline orders it
// exactly against the workers' events.
func fired(env Env, point string, at time.Time, attrs map[string]string) {
	env.record(history.Event{TS: at.UnixNano(), Type: history.Info, F: history.FFaultFired, Point: point, Attrs: attrs})
	if env.report != nil {
		env.report.mu.Lock()
		env.report.r.Fired = append(env.report.r.Fired, Firing{At: at, Point: point, Attrs: attrs})
		env.report.mu.Unlock()
	}
}

// healed records how a fault was undone, and when.
func healed(env Env, at time.Time, attrs map[string]string) {
	env.record(history.Event{TS: at.UnixNano(), Type: history.Info, F: history.FHeal, Attrs: attrs})
	if env.report != nil {
		env.report.mu.Lock()
		env.report.r.Healed = append(env.report.r.Healed, at)
		env.report.mu.Unlock()
	}
}

// prepared records what a fault set up before acting, between began and now:
// not yet the fault firing.
func prepared(env Env, began time.Time, attrs map[string]string) {
	attrs["took"] = time.Since(began).Round(time.Millisecond).String()
	env.record(history.Event{TS: began.UnixNano(), Type: history.Info, F: history.FFaultPrepare, Attrs: attrs})
}
