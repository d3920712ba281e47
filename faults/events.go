package faults

import (
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// fHeal is the operation of an event that says how a fault was undone;
// fPrepare of one that says what a fault set up before it acted (leaders it
// moved), which is not yet the fault firing.
const (
	fHeal    = "heal"
	fPrepare = "fault-prepare"
)

// fired records that a fault acted: when, where and what it did. at is the
// moment of the action (not of the record), so the timeline orders it
// exactly against the workers' events.
func fired(env Env, fault, point string, at time.Time, attrs map[string]string) {
	env.Fired(history.Event{TS: at.UnixNano(), Type: history.Info, F: history.FFaultFired, Fault: fault,
		Point: point, Attrs: attrs})
}

// healed records how a fault was undone, and when.
func healed(env Env, fault string, at time.Time, attrs map[string]string) {
	env.Fired(history.Event{TS: at.UnixNano(), Type: history.Info, F: fHeal, Fault: fault, Attrs: attrs})
}

// prepared records what a fault set up before acting, between began and now.
func prepared(env Env, fault string, began time.Time, attrs map[string]string) {
	attrs["took"] = time.Since(began).Round(time.Millisecond).String()
	env.Fired(history.Event{TS: began.UnixNano(), Type: history.Info, F: fPrepare, Fault: fault, Attrs: attrs})
}
