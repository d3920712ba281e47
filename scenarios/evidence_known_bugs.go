package scenarios

import (
	"fmt"
	"strconv"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
)

// staleWriteLanded: the persister's resent state write reached the share
// coordinator over a stored start offset above its own, alone (the leader's
// later writes held), and a new leader then read the share-partition's
// state from the coordinator: apache/kafka #23074's window, open for
// certain. A release with the fix shows the same evidence and keeps the
// higher start offset; one without it lowers the stored start offset to the
// stale write's.
var staleWriteLanded = Evidence{Name: "a stale state write landed, then the state was reloaded",
	Missing: "no stale state write landed over a higher stored start offset, followed by a reload",
	Find: func(h history.History, _ Conditions) (bool, string) {
		var landed *history.Event
		for i, e := range h {
			if e.F != history.FFaultFired {
				continue
			}
			switch e.Point {
			case faults.PointStaleStateWrite:
				stale, err1 := strconv.ParseInt(e.Attrs[faults.StaleWriteStartAttr], 10, 64)
				before, err2 := strconv.ParseInt(e.Attrs[faults.StoredStartBeforeAttr], 10, 64)
				if err1 != nil || err2 != nil {
					return false, "the stale write's firing does not say its start offsets"
				}
				if before <= stale {
					return false, fmt.Sprintf("the stored start offset %d was not above the stale write's %d", before, stale)
				}
				landed = &h[i]
			case faults.PointStateReloaded:
				if landed == nil {
					continue
				}
				if e.Attrs["state_read"] != "true" {
					return false, fmt.Sprintf("the leadership moved to broker %s, but no read of the state from the share coordinator was seen", e.Attrs["to"])
				}
				return true, fmt.Sprintf("a write from start offset %s over a stored %s (after it: %s), then broker %s read the state",
					landed.Attrs[faults.StaleWriteStartAttr], landed.Attrs[faults.StoredStartBeforeAttr], landed.Attrs[faults.StoredStartAfterAttr], e.Attrs["to"])
			}
		}
		return false, ""
	}}

// staleCountLanded: the persister's resent state write reached the share
// coordinator alone, at the stored start offset, with a delivery-complete
// count below the stored one: apache/kafka #23112's window, open for
// certain. A release with the fix keeps the higher count; one without it
// takes the resend's, and the lag rises (share-offsets-regressed).
var staleCountLanded = Evidence{Name: "a stale delivery-complete count landed at the stored start offset",
	Missing: "no resent state write landed at the stored start offset with a lower delivery-complete count",
	Find: func(h history.History, _ Conditions) (bool, string) {
		for _, e := range h {
			if e.F != history.FFaultFired || e.Point != faults.PointStaleCountWrite {
				continue
			}
			get := func(k string) (int64, bool) {
				v, err := strconv.ParseInt(e.Attrs[k], 10, 64)
				return v, err == nil
			}
			start, ok1 := get(faults.StaleWriteStartAttr)
			before, ok2 := get(faults.StoredStartBeforeAttr)
			count, ok3 := get(faults.StaleWriteCountAttr)
			stored, ok4 := get(faults.StoredCountBeforeAttr)
			after, _ := get(faults.StoredCountAfterAttr)
			switch {
			case !ok1 || !ok2 || !ok3 || !ok4:
				return false, "the stale write's firing does not say its offsets and counts"
			case start != before || count < 0 || stored <= count:
				return false, fmt.Sprintf("the resend (start %d, count %d) did not meet a stored start %d with a higher count (%d)", start, count, before, stored)
			}
			return true, fmt.Sprintf("a write of count %d at start offset %d over a stored count %d (after it: %d)", count, start, stored, after)
		}
		return false, ""
	}}
