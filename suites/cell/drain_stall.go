package cell

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// A drain can stop moving with nothing left to do (docs/FINDINGS.md 13): the
// share start offset the drain waits for is the share coordinator's copy
// (DescribeShareGroupOffsets), and Kafka 4.2's share-partition leader sends
// its start offset only inside its next state write. When the write that
// acknowledged a partition's first in-flight batch is held up by a broker
// or share coordinator failover, the leader moves on in memory while the
// writes behind it still carry the old start offset; once the partition has
// nothing more to write, the coordinator's copy stays behind for good and
// the drain waits out its timeout (150-184 s seen) although every worker
// polls empty.
//
// The drain answers with one more input record on such a partition: the
// leader acquires, and on its acknowledgement writes, its state again, with
// its real start offset. The record is an ordinary input (ctp.NudgeRecord):
// the workers process it and the checker checks it like every other. If the
// start offset still does not move, the records are really held and the
// drain goes on waiting; each nudge is on the cell's timeline with the
// offsets it met, so a run tells which of the two it was.

// stallWatch decides when the drain nudges.
type stallWatch struct {
	// after is how long nothing may move, with no fault acting, before the
	// drain nudges: a record held by a live member comes back when its
	// acquisition lock expires, so a stall longer than the lock plus a
	// margin is not the workload's own pace.
	after time.Duration
	// limit bounds the nudges per partition.
	limit int

	lastDone int64
	since    time.Time
	nudges   map[int32]int
	// nudged names each nudge, for the cell's notes.
	nudged []string
}

// stallMargin is added to the lock: a redelivery after the lock expired
// still needs a fetch, a poll and a transaction.
const stallMargin = 10 * time.Second

// nudgeLimit bounds the nudges of one partition: a write held up by a
// share coordinator failover retries for up to a few minutes (Kafka 4.2's
// persister: 5 sends, backoff to 30 s), and a nudge that met it pending
// leaves the start offset behind again.
const nudgeLimit = 3

func newStallWatch(lock time.Duration) *stallWatch {
	return &stallWatch{after: lock + stallMargin, limit: nudgeLimit, since: time.Now(), nudges: map[int32]int{}}
}

// stuck returns the partitions to nudge now: the share group's progress
// did not move for w.after since it last moved or a fault last acted, and
// these partitions' start offsets are below their ends.
func (w *stallWatch) stuck(now time.Time, done int64, lastFault time.Time, start, end map[int32]int64) []int32 {
	if done != w.lastDone {
		w.lastDone, w.since = done, now
		return nil
	}
	quiet := w.since
	if lastFault.After(quiet) {
		quiet = lastFault
	}
	if now.Sub(quiet) < w.after {
		return nil
	}
	var ps []int32
	for p, e := range end {
		if s, ok := start[p]; ok && s < e && w.nudges[p] < w.limit {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	if len(ps) > 0 {
		// The next nudge, if any, only after another quiet period.
		w.since = now
	}
	return ps
}

// nudge writes one more input record to each partition and records it.
func (r *run) nudge(ctx context.Context, w *stallWatch, ps []int32, start, end map[int32]int64) {
	for _, p := range ps {
		k := w.nudges[p]
		w.nudges[p]++
		nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := ctp.Nudge(nctx, r.env.Cluster.Bootstrap(), r.topo.InputTopic, p, k, cluster.ClientOpts(r.env.Cluster)...)
		cancel()
		e := history.Event{Type: history.OK, F: history.FNudge, Attrs: map[string]string{
			"partition": fmt.Sprint(p), "share_start": fmt.Sprint(start[p]), "end": fmt.Sprint(end[p]),
			"id": string(ctp.NudgeRecord(p, k).Key), "why": "nothing moved for " + w.after.String() + " with no fault acting"}}
		if err != nil {
			e.Type, e.Error = history.Fail, err.Error()
		}
		_ = r.timeline.Record(e)
		w.nudged = append(w.nudged, fmt.Sprintf("p%d at share start offset %d of %d", p, start[p], end[p]))
	}
}

// note is the cell's note on the nudges w made, "" without any.
func (w *stallWatch) note() string {
	if len(w.nudged) == 0 {
		return ""
	}
	return "the drain stopped moving with no fault acting and wrote one more input record to " +
		strings.Join(w.nudged, ", ") + " (docs/FINDINGS.md 13; the orchestrator timeline's nudge events)"
}
