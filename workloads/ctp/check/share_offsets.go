package check

import (
	"fmt"
	"strconv"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
)

// Causes of share-offsets-regressed.
const (
	// CauseStartWentBack: the share coordinator's start offset of an input
	// partition went back with nothing reset (a stale state write landed:
	// apache/kafka #23074).
	CauseStartWentBack = "the share start offset went back"
	// CauseLagRose: at the same start offset, the lag rose by more than
	// the input added: the delivery-complete count went back (a stale state
	// write landed: apache/kafka #23112).
	CauseLagRose = "the lag rose with no new input"
)

// shareOffsetsRead is one share-offsets event: a partition's offsets as
// DescribeShareGroupOffsets reported them.
type shareOffsetsRead struct {
	at              int64
	start, lag, end int64
}

// checkShareOffsetsRegressed compares consecutive reads of each input
// partition's share offsets that the run recorded (a fault's reads of the
// share coordinator's stored state): the start offset never goes back, and
// at one start offset the lag never rises by more than the input added,
// since acknowledgements and archiving only complete records and nothing
// resets the group in a run (Jepsen's nonmonotonic read, of the group's
// progress). Allowed nowhere. A lag the broker did not report (-1) is not
// compared.
func checkShareOffsetsRegressed(s *state) *part {
	p := newPart()
	last := map[string]shareOffsetsRead{}
	for _, e := range s.obs.History {
		if e.F != history.FShareOffsets || e.Type != history.OK {
			continue
		}
		key := e.Attrs["topic"] + "/" + e.Attrs["partition"]
		r, ok := parseShareOffsets(e)
		if !ok {
			continue
		}
		prev, seen := last[key]
		last[key] = r
		if !seen || r.end < prev.end {
			continue
		}
		switch {
		case r.start < prev.start:
			p.report(verdict.AnomalyShareOffsetsRegressed, key, CauseStartWentBack, func() string {
				return fmt.Sprintf("%s: the share start offset of %s was %d at %s, %d at %s (end offset %d, then %d)",
					CauseStartWentBack, key, prev.start, s.at(prev.at), r.start, s.at(r.at), prev.end, r.end)
			})
		case r.start == prev.start && prev.lag >= 0 && r.lag >= 0 && r.lag-prev.lag > r.end-prev.end:
			p.report(verdict.AnomalyShareOffsetsRegressed, key, CauseLagRose, func() string {
				return fmt.Sprintf("%s: at share start offset %d, the lag of %s was %d at %s and %d at %s, with %d records added",
					CauseLagRose, r.start, key, prev.lag, s.at(prev.at), r.lag, s.at(r.at), r.end-prev.end)
			})
		}
	}
	return p
}

func parseShareOffsets(e history.Event) (shareOffsetsRead, bool) {
	start, err1 := strconv.ParseInt(e.Attrs["start"], 10, 64)
	lag, err2 := strconv.ParseInt(e.Attrs["lag"], 10, 64)
	end, err3 := strconv.ParseInt(e.Attrs["end"], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return shareOffsetsRead{}, false
	}
	return shareOffsetsRead{at: e.TS, start: start, lag: lag, end: end}, true
}
