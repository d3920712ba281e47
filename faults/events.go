package faults

import (
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// fHeal is the operation of an event that says how a fault was undone.
const fHeal = "heal"

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
