package cell

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// progressState is a cell's progress as last read, for the readers that
// must not send requests of their own (a shared fault's trigger reads every
// member's), and when its cluster fault last acted.
type progressState struct {
	done, total atomic.Int64
	// faultAt is when a cluster fault last fired or healed (unix nanos).
	faultAt atomic.Int64
}

func (p *progressState) last() (done, total int64) { return p.done.Load(), p.total.Load() }

func (p *progressState) faultActed() { p.faultAt.Store(time.Now().UnixNano()) }

func (p *progressState) lastFault() time.Time { return time.Unix(0, p.faultAt.Load()) }

func (p *progressState) faultActedAfter(t time.Time) bool { return p.faultAt.Load() > t.UnixNano() }

// shareState is how many input records the share group is done with of
// how many there are (the seeding's unwritten records included, so neither
// a trigger's fraction nor the drain's end moves for them), with each
// partition's share start and end offsets; ok is false when they could not
// be read.
func (r *run) shareState(ctx context.Context, admin *kgo.Client) (done, total int64, start, end map[int32]int64, ok bool) {
	// The unwritten count first, the end offsets after: the held input
	// counts as unwritten until its write is acknowledged (so already in
	// the end offsets), so this order never counts a record in neither.
	// The other order did, when the held input was written between the two
	// reads: the total came out as the head alone, the drain took the cell
	// for done, and a fault still preparing was cut short ("the cell ended
	// while attempt 1 waited", stale-delivery-count-write, CI).
	pending := r.seeding.pending()
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start, end, err := ctp.ShareProgress(pctx, admin, r.topo.Group, r.topo.InputTopic)
	if err != nil {
		return 0, int64(r.s.Records), nil, nil, false
	}
	for p, e := range end {
		total += e
		done += min(start[p], e)
	}
	total += pending
	r.progress.done.Store(done)
	r.progress.total.Store(total)
	return done, total, start, end, true
}

// shareProgress is shareState's counts.
func (r *run) shareProgress(ctx context.Context, admin *kgo.Client) (done, total int64) {
	done, total, _, _, _ = r.shareState(ctx, admin)
	return done, total
}
