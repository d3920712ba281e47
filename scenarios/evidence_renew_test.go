package scenarios

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// renewHistory: w1.1 polls at 1 s, stalls at 2 s, renews at 3 s with the
// given outcome (holding until `until` s when ok).
func renewHistory(outcome history.Type, until int64) history.History {
	r := ev(3, "w1.1", outcome, history.FRenew, "r-1")
	switch outcome {
	case history.OK:
		r.Attrs = map[string]string{ctp.AttrLockUntil: strconv.FormatInt(until*1e9, 10)}
	default:
		r.Error = "in/0: INVALID_RECORD_STATE: Renewing acquisition locks is not enabled for the group."
	}
	return history.History{ev(1, "w1.1", history.OK, history.FPoll, "r-1"),
		fire(2, "w1.1", ctp.PointBeforeCommit, ctp.ActionStall), ev(3, "w1.1", history.Invoke, history.FRenew, "r-1"), r}
}

// TestRenewEvidence: lock-expiry-renewed needs confirmed renewals that
// reach past the poll's lock; lock-expiry-renew-disabled needs the
// broker's refusal, and says so when the broker confirmed instead.
func TestRenewEvidence(t *testing.T) {
	renewed, _ := Lookup("lock-expiry-renewed")
	disabled, _ := Lookup("lock-expiry-renew-disabled")
	c := Conditions{Lock: 15 * time.Second}
	if _, missing := Show(renewed.Evidence, renewHistory(history.OK, 18), c); missing != nil {
		t.Errorf("renewed past the lock: missing %s: %s", missing.Name, missing.Missing)
	}
	for name, h := range map[string]history.History{
		"not past the lock": renewHistory(history.OK, 10),
		"refused":           renewHistory(history.Fail, 0),
		"never renewed":     renewHistory(history.OK, 18)[:2],
	} {
		if _, missing := Show(renewed.Evidence, h, c); missing == nil {
			t.Errorf("renewed, %s: evidence shown", name)
		}
	}
	if notes, missing := Show(disabled.Evidence, renewHistory(history.Fail, 0), c); missing != nil {
		t.Errorf("disabled, refused: missing %s", missing.Missing)
	} else if !strings.Contains(strings.Join(notes, " "), "INVALID_RECORD_STATE") {
		t.Errorf("the notes do not say what the broker answered: %v", notes)
	}
	if _, missing := Show(disabled.Evidence, renewHistory(history.OK, 18), c); missing == nil || !strings.Contains(missing.Missing, "confirmed a renewal") {
		t.Errorf("disabled, confirmed: %+v", missing)
	}
	if disabled.GroupConfigs["share.renew.acknowledge.enable"] != "false" {
		t.Errorf("lock-expiry-renew-disabled does not disable RENEW: %v", disabled.GroupConfigs)
	}
}
