package ctp

import (
	"testing"
	"time"
)

// Only ActionStallOverlap has a follower's half: a hold of the first
// redelivered batch for half the stall, which with a stall of lock+m (m <
// lock) ends after the stalled worker resumes and before the follower's own
// lock does.
func TestArmFollower(t *testing.T) {
	lock, margin := 15*time.Second, 3*time.Second
	a := Arm{Fault: "f", Point: PointBeforeBegin, Action: ActionStallOverlap, Batch: 2, Stall: Duration(lock + margin)}
	f, ok := a.Follower()
	if !ok || f.Action != ActionHoldRedelivered || f.Fault != "f" || f.Batch != 0 || !f.HoldsRedelivered() || f.Armed() {
		t.Fatalf("follower %+v %v", f, ok)
	}
	if hold := f.Stall.D(); lock+hold <= lock+margin || lock+hold >= 2*lock {
		t.Errorf("hold %s: want the follower (acquiring at the lock) to hold past lock+%s and within its own lock", hold, margin)
	}
	for _, act := range []Action{ActionStall, ActionKill, ActionStop, ""} {
		if f, ok := (Arm{Action: act, Stall: a.Stall}).Follower(); ok || f != (Arm{}) {
			t.Errorf("%q: follower %+v, want none", act, f)
		}
	}
	if !ActionStallOverlap.Stalls() || !ActionStall.Stalls() || ActionHoldRedelivered.Stalls() {
		t.Error("Stalls: want the armed stalls only")
	}
}
