package scenarios

import (
	"fmt"
	"strconv"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// renewedPastLock: the armed worker's renewals of its stalled batch were
// confirmed, none refused, and the last one holds the records past the
// lock of the poll that acquired them (Conditions.Lock, when known): the
// stall outlasted the lock and the renewals covered it.
var renewedPastLock = Evidence{Name: "renewals confirmed past the lock",
	Missing: "the armed worker renewed nothing the broker confirmed",
	Find: func(h history.History, c Conditions) (bool, string) {
		a, ok := findArmed(h)
		if !ok {
			return false, ""
		}
		oks, until := 0, int64(0)
		for _, e := range h[a.idx+1:] {
			if e.Worker != a.fired.Worker || e.F != history.FRenew {
				continue
			}
			switch e.Type {
			case history.Fail, history.Info:
				return false, "the broker did not confirm a renewal: " + e.Error
			case history.OK:
				oks++
				if u, err := strconv.ParseInt(e.Attrs[ctp.AttrLockUntil], 10, 64); err == nil {
					until = max(until, u)
				}
			}
		}
		if oks == 0 {
			return false, ""
		}
		if c.Lock > 0 && a.polled > 0 && until <= a.polled+c.Lock.Nanoseconds() {
			return false, fmt.Sprintf("the renewals (%d) held the records until %s, not past the lock of their poll (%s)",
				oks, a.at(until), a.at(a.polled+c.Lock.Nanoseconds()))
		}
		return true, fmt.Sprintf("%s renewed its batch %d times, held until %s (polled at %s, lock %s)",
			a.fired.Worker, oks, a.at(until), a.at(a.polled), c.Lock)
	}}

// renewRefused: the broker refused the armed worker's renewal, and what it
// answered (share.renew.acknowledge.enable=false: INVALID_RECORD_STATE).
var renewRefused = Evidence{Name: "the broker refused RENEW",
	Missing: "the armed worker never renewed",
	Find: func(h history.History, _ Conditions) (bool, string) {
		a, ok := findArmed(h)
		if !ok {
			return false, ""
		}
		for _, e := range h[a.idx+1:] {
			if e.Worker != a.fired.Worker || e.F != history.FRenew || e.Type == history.Invoke {
				continue
			}
			if e.Type == history.OK {
				return false, "the broker confirmed a renewal although the group disables RENEW (share.renew.acknowledge.enable=false)"
			}
			return true, fmt.Sprintf("%s's renewal at %s: %s", a.fired.Worker, a.at(e.TS), e.Error)
		}
		return false, ""
	}}
