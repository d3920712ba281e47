package benchrun

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// inputPlan is how much input a run gets. A bench run pre-seeds its input, so
// every poll finds a full batch waiting (a batch-size sweep that starved would
// measure smaller batches than it names) and no producer competes with the
// workers while they are measured.
//
// Open loop: the run can take at most rate x (warm-up + duration) x batch
// records; it gets a quarter more, plus four batches per worker for the polls
// in flight at the end, capped at MaxInput. Closed loop has no such bound: it
// pre-seeds a slice of the cap and the feeder tops the input up while the
// run goes (then a producer does compete; the report says so). The feeder
// also tops up an open-loop run whose need was capped.
type inputPlan struct {
	initial int
	// lowWater: when fewer unprocessed records than this remain, the feeder
	// produces refill more (0 when it never needs to).
	lowWater, refill int
	capped           bool
}

func planInput(o *Options, batch int, rate float64) inputPlan {
	inFlight := 4 * batch * o.Workers
	if rate > 0 {
		need := int(math.Ceil(rate * (o.Warmup + o.Duration).Seconds() * float64(batch)))
		want := need + need/4 + inFlight
		if want <= o.MaxInput {
			return inputPlan{initial: want}
		}
		low := max(inFlight*5, o.MaxInput/4)
		return inputPlan{initial: o.MaxInput, lowWater: low, refill: low * 2, capped: true}
	}
	low := min(max(inFlight*10, 5000), o.MaxInput/2)
	initial := min(max(low*4, 20_000), o.MaxInput)
	return inputPlan{initial: initial, lowWater: low, refill: low * 2}
}

// feeder writes a run's input: unique ids r-000000... (CONTRACT.md), spread
// round-robin over the partitions.
type feeder struct {
	cl     *kgo.Client
	plan   inputPlan
	seeded atomic.Int64
	// processed is how many input records the workers took (batches polled),
	// counted by the run.
	processed *atomic.Int64
	refills   atomic.Int64

	mu        sync.Mutex
	closeOnce sync.Once
	stop      context.CancelFunc
	done      chan struct{}
	err       error
}

func newFeeder(c cluster.Cluster, topic string, plan inputPlan, processed *atomic.Int64) (*feeder, error) {
	cl, err := cluster.NewClient(c, kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()), kgo.ClientID("sharechaos-bench-seeder"),
		kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("create seeder: %w", err)
	}
	return &feeder{cl: cl, plan: plan, processed: processed}, nil
}

// produce writes n more records, in chunks so memory stays small.
func (f *feeder) produce(ctx context.Context, n int) error {
	const chunk = 20_000
	for n > 0 {
		k := min(n, chunk)
		first := int(f.seeded.Load())
		rs := make([]*kgo.Record, k)
		for i := range rs {
			id := ctp.InputID(first + i)
			rs[i] = &kgo.Record{Key: []byte(id), Value: []byte(ctp.Payload(id))}
		}
		if err := f.cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			return fmt.Errorf("seed input: %w", err)
		}
		f.seeded.Add(int64(k))
		n -= k
	}
	return nil
}

// seed writes the initial input and returns once the brokers have it all.
func (f *feeder) seed(ctx context.Context) error { return f.produce(ctx, f.plan.initial) }

// topUp keeps enough input ahead of the workers until stopped (a no-op for a
// plan that never needs it).
func (f *feeder) topUp(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	f.stop, f.done = cancel, make(chan struct{})
	go func() {
		defer close(f.done)
		if f.plan.lowWater == 0 {
			<-ctx.Done()
			return
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if f.seeded.Load()-f.processed.Load() >= int64(f.plan.lowWater) {
				continue
			}
			if err := f.produce(ctx, f.plan.refill); err != nil {
				if ctx.Err() == nil {
					f.mu.Lock()
					f.err = err
					f.mu.Unlock()
				}
				return
			}
			f.refills.Add(1)
		}
	}()
}

// close stops the top-up and the client; it returns the top-up's error. It
// may be called more than once.
func (f *feeder) close() error {
	f.closeOnce.Do(func() {
		if f.stop != nil {
			f.stop()
			<-f.done
		}
		f.cl.Close()
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
