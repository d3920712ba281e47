package check

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// renewWindow is a record held by a worker on a renewal the broker
// confirmed: from the renew's ok until the lock it started ends
// (ctp.AttrLockUntil) or the worker lets the record go, whichever is first.
type renewWindow struct {
	worker     string
	start, end int64
}

// checkRedeliveredWhileRenewed finds records a second worker polled while
// the broker held them for another on a confirmed RENEW (KIP-1222): a
// renewal the broker confirmed keeps the record the renewing member's for
// a whole lock from the renew's start, so nobody else may acquire it then.
// The window closes early when the renewing worker lets the record go: its
// ack of it (ACCEPT, RELEASE), its next poll (kgo accepts what is left on
// the next poll), or its history's end (a dead worker's connection
// releases everything). A refused or unanswered renewal opens no window:
// those records may go to another member when their lock ends.
func checkRedeliveredWhileRenewed(s *state) *part {
	p := newPart()
	windows := map[string][]renewWindow{}
	open := map[string]map[string]int{} // worker -> id -> index in windows[id]
	closeFor := func(worker, id string, ts int64) {
		if i, ok := open[worker][id]; ok {
			windows[id][i].end = min(windows[id][i].end, ts)
			delete(open[worker], id)
		}
	}
	for _, e := range s.obs.History {
		switch {
		case e.F == history.FRenew && e.Type == history.OK:
			until, err := strconv.ParseInt(e.Attrs[ctp.AttrLockUntil], 10, 64)
			if err != nil {
				continue
			}
			if open[e.Worker] == nil {
				open[e.Worker] = map[string]int{}
			}
			for _, r := range e.Records {
				closeFor(e.Worker, r.ID, e.TS)
				windows[r.ID] = append(windows[r.ID], renewWindow{worker: e.Worker, start: e.TS, end: until})
				open[e.Worker][r.ID] = len(windows[r.ID]) - 1
			}
		case e.F == history.FAck && e.Type == history.Invoke:
			for _, r := range e.Records {
				closeFor(e.Worker, r.ID, e.TS)
			}
		case e.F == history.FPoll && e.Type == history.OK:
			for id := range open[e.Worker] {
				closeFor(e.Worker, id, e.TS)
			}
		}
	}
	for w, ids := range open {
		for id := range ids {
			closeFor(w, id, s.lastTS[w])
		}
	}
	type found struct {
		id, holder, other string
		start, polled     int64
	}
	first := map[string]found{}
	for _, e := range s.obs.History {
		if e.F != history.FPoll || e.Type != history.OK {
			continue
		}
		for _, r := range e.Records {
			for _, w := range windows[r.ID] {
				if _, seen := first[r.ID]; !seen && w.worker != e.Worker && e.TS > w.start && e.TS < w.end {
					first[r.ID] = found{r.ID, w.worker, e.Worker, w.start, e.TS}
				}
			}
		}
	}
	ids := make([]string, 0, len(first))
	for id := range first {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f := first[id]
		p.report(verdict.AnomalyRedeliveredWhileRenewed, id, "", func() string {
			return fmt.Sprintf("polled by %s at %s while the broker held it for %s on a renewal confirmed at %s", f.other, s.at(f.polled), f.holder, s.at(f.start))
		})
	}
	return p
}
