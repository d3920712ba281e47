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
