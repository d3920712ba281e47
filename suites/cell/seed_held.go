package cell

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// heldInput is the part of a cell's input written only once its cluster
// fault is about to act (faults.Env.TookHold). A fault that waits for a
// fraction of the input to be done polls the share group's progress; a fast
// cell (embedded: 400 records in 40 ms) finished its whole input between
// two polls, and the fault never fired. With the rest held back, the load
// cannot pass the trigger before the fault saw it: the seeding writes a head
// of twice the trigger's fraction, so on a real cluster the workers are
// still busy with it at the trigger (the load goes on as if seeded at once),
// and on a fast one they wait at the head until the trigger, then the rest
// comes as the fault acts. The rest is written before the fault acts, on a
// healthy cluster: written during a broker kill, a new client's first
// request to the dead broker failed the write (nightly, docker).
type heldInput struct {
	ctx     context.Context // the cell's: a release ends with the cell
	r       *run
	from, n int
	// unwritten is what is not yet written: the cell's progress counts it in
	// its total, so neither the trigger's fraction nor the drain's end
	// moves for holding it.
	unwritten atomic.Int64
	once      sync.Once
	done      chan struct{}
	err       error
}

// holdInput is the held part of a cell of records whose fault acts once
// fraction of them is done, or nil when nothing is held (a head that is the
// whole input, or a fault that acts at once). A fault that picks its own
// moment (faults.Mechanism.TakesHold: case 4 waits for a commit through a
// coordinator it first moved every other role off) gets a head of
// ownMomentHead: a warmed-up loop while it prepares, and the rest once it
// is in place (on two fast brokers a 1000-record load ended before case 4
// had moved the roles: never fired).
func holdInput(ctx context.Context, r *run, records int, fraction float64, ownMoment bool) *heldInput {
	head := int(math.Ceil(2 * fraction * float64(records)))
	if fraction <= 0 {
		if !ownMoment {
			return nil // a fault that acts at once: nothing to wait for
		}
		head = int(math.Ceil(ownMomentHead * float64(records)))
	}
	if head >= records {
		return nil
	}
	h := &heldInput{ctx: ctx, r: r, from: head, n: records - head, done: make(chan struct{})}
	h.unwritten.Store(int64(h.n))
	return h
}

// ownMomentHead is the head of a cell whose fault picks its own moment.
const ownMomentHead = 0.1

// head is how many records are seeded before the workers start.
func (h *heldInput) head(records int) int {
	if h == nil {
		return records
	}
	return h.from
}

// count is what is still held (0 for nil).
func (h *heldInput) count() int64 {
	if h == nil {
		return 0
	}
	return h.unwritten.Load()
}

// release writes the held records, once: the first call writes them and
// returns when they are acknowledged (or the write failed: failure says
// so); a call while it writes waits for it, later calls return at once.
func (h *heldInput) release() {
	if h == nil {
		return
	}
	h.once.Do(h.write)
}

func (h *heldInput) write() {
	defer close(h.done)
	r := h.r
	sctx, cancel := context.WithTimeout(h.ctx, 2*time.Minute)
	defer cancel()
	began := time.Now()
	if err := ctp.SeedRange(sctx, r.env.Cluster.Bootstrap(), r.topo.InputTopic, h.from, h.n, cluster.ClientOpts(r.env.Cluster)...); err != nil {
		h.err = fmt.Errorf("write the input held until the fault acts: %w", err)
		return
	}
	h.unwritten.Store(0)
	_ = r.timeline.Record(history.Event{TS: began.UnixNano(), Type: history.OK, F: history.FSeed, Attrs: map[string]string{
		"records": fmt.Sprint(h.n), "topic": r.topo.InputTopic, "held": "until the fault acts",
		"took": time.Since(began).Round(time.Millisecond).String()}})
}

// failure is the release's error, once it ended (nil before, and for nil).
func (h *heldInput) failure() error {
	if h == nil {
		return nil
	}
	select {
	case <-h.done:
		return h.err
	default:
		return nil
	}
}

// wait waits for a release under way to end, so that the cell's cleanup
// does not delete a topic being written.
func (h *heldInput) wait() {
	if h == nil {
		return
	}
	h.once.Do(func() { close(h.done) }) // never released: nothing to wait for
	<-h.done
}

// The seeding strategy (seeding.go): the head before the workers, the
// rest at takeHold.

func (h *heldInput) start(ctx context.Context, r *run) error {
	return seedHead(ctx, r, h.from, h.count())
}

func (h *heldInput) pending() int64 { return h.count() }

func (h *heldInput) takeHold() { h.release() }

func (h *heldInput) awaitEnd(context.Context, *run, *kgo.Client, *workerset.Set) error { return nil }

// stop waits for a release under way, so that the cell's cleanup does not
// delete a topic being written.
func (h *heldInput) stop() { h.wait() }

func (h *heldInput) notes(*run) []string { return nil }
