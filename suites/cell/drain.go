package cell

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/suites/workerset"
)

// drainTick is how often the drain reads the share group's progress. A
// shared fault's trigger sees only these reads (Share.slowest): at one a
// second, embedded cells of 400 records drained before their fault's
// trigger saw them under load (CI: never fired). Since then the input past
// the trigger is held back (seed_held.go), which closes that race at any
// tick; each read is a DescribeShareGroupOffsets, so a longer tick is the
// broker CPU back, not yet measured.
const drainTick = 500 * time.Millisecond

// drain waits until the share group is done with every input record, the
// drain times out, the workers cannot be kept running, or ctx ends. It
// first waits for the seeding to have written everything (a soak's
// seeder). A stall with nothing left to do is nudged (drain_stall.go).
func (r *run) drain(ctx context.Context, admin *kgo.Client, ws *workerset.Set) (bool, error) {
	if err := r.seeding.awaitEnd(ctx, r, admin, ws); err != nil {
		return false, err
	}
	deadline := time.Now().Add(r.s.DrainTimeout)
	tick := time.NewTicker(drainTick)
	defer tick.Stop()
	if r.stall == nil {
		r.stall = newStallWatch(r.s.Lock)
	}
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-tick.C:
		}
		if err := ws.Failure(); err != nil {
			return false, err
		}
		if err := r.seeding.failure(); err != nil {
			return false, err
		}
		done, total, start, end, ok := r.shareState(ctx, admin)
		r.showProgress(done, total)
		if total > 0 && done >= total && !ws.FaultPending() {
			return true, nil
		}
		if ok && !ws.FaultPending() {
			if ps := r.stall.stuck(time.Now(), done, r.progress.lastFault(), start, end); len(ps) > 0 {
				r.nudge(ctx, r.stall, ps, start, end)
			}
		}
		if time.Now().After(deadline) {
			return false, nil
		}
	}
}

// showProgress shows the cell's records done; all of them done means it
// drains.
func (r *run) showProgress(done, total int64) {
	if total > 0 && done >= total {
		r.env.Display.Phase(r.plan, PhaseDrain)
	}
	r.env.Display.Progress(r.plan, done, total, func() string { return fmt.Sprintf("%d of %d input records done", done, total) })
}

// DrainTimedOutNote begins the note of a cell whose drain timed out.
const DrainTimedOutNote = "the drain timed out after"

// drainNotes are the notes of the drain: its nudges, and a timeout.
func (r *run) drainNotes(drained bool) []string {
	var notes []string
	if n := r.stall.note(); n != "" {
		notes = append(notes, n)
	}
	if !drained {
		notes = append(notes, fmt.Sprintf("%s %s", DrainTimedOutNote, r.s.DrainTimeout))
	}
	return notes
}
