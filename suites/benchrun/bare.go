package benchrun

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// The harness's own cost is measured against a bare franz-go program: the
// explicit-mode CTP loop (share consumer with one fetch per poll, transactional
// producer, the same records and headers, ACCEPT with a synchronous flush after
// the commit) with no history, no recorder, no driver: plain kgo calls in a
// loop paced by a sleep, each transaction's time kept in a slice. It runs on
// the same cluster in the same bench, with the same rate, workers, warm-up and
// duration as the instrumented runs, and txn_total_duration is measured the
// same way: from the transaction's intended start to the commit returned.
//
// The "bare" loop makes the same client calls as ctp's worker (Produce each
// output, wait for every promise, Flush, commit) on clients built from the
// same options (ctp.WorkerConfig.ConsumerOpts and ProducerOpts: linger 0, the
// same fetch sizes, wait and timeouts), so its ratio to the instrumented loop
// is the cost of histories, recorder and driver. The "bare-sync" variant
// produces with ProduceSync instead: the difference between the two is what
// the worker's produce pattern costs, not the harness.

// bareSample is one bare transaction: its intended start and its latency.
type bareSample struct {
	intended time.Time
	d        time.Duration
}

func runBare(ctx context.Context, env *benchEnv, p benchPlan, dir string, res benchResult) benchResult {
	o := env.o
	res.run.Mode = p.label()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.run.Error = err.Error()
		res.harness = true
		return res
	}
	fail := func(err error) benchResult {
		res.run.Error = err.Error()
		res.harness = ctx.Err() == nil
		return res
	}
	topo, err := setupTopology(ctx, env, p)
	if err != nil {
		return fail(err)
	}
	defer dropTopology(ctx, env, topo)
	var processed atomic.Int64
	feed, err := newFeeder(env.c, topo.InputTopic, planInput(o, p.batch), &processed)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = feed.close() }()
	sctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	err = feed.seed(sctx)
	cancel()
	if err != nil {
		return fail(err)
	}
	// The instrumented runs read their outputs as they commit (the tail
	// reader, for e2e_latency): a read_committed consumer long-polling the
	// same brokers. The bare loop runs beside the same reader, so the ratio
	// of the two is the loop's instrumentation, not the e2e measurement's
	// load on the cluster (embedded kfake on 2 busy cores, 5 repeats: 1.18
	// and 1.20 at batch 1 and 10 without it here, 1.10 and 1.17 with it,
	// neither of the latter significant).
	tail, err := startTailReader(ctx, env.c, topo.OutputTopic)
	if err != nil {
		return fail(err)
	}
	defer tail.close()
	workers := make([]*bareWorker, o.Workers)
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.close()
			}
		}
	}()
	for i := range workers {
		w, err := openBareWorker(ctx, benchWorkerConfig(env, topo, p, i+1, dir))
		if w != nil {
			w.sync = p.bareSync
		}
		if err != nil {
			return fail(err)
		}
		workers[i] = w
	}
	feed.topUp(ctx)

	start := time.Now()
	measureFrom := start.Add(o.Warmup)
	end := measureFrom.Add(o.Duration)
	res.run.Started = measureFrom
	var (
		mu      sync.Mutex
		samples []bareSample
		wg      sync.WaitGroup
		failed  atomic.Int64
		dropped atomic.Int64
	)
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w.loop(ctx, bareSchedule{start: start, worker: i, workers: len(workers), rate: o.Rate,
				measureFrom: measureFrom, end: end},
				&processed, &failed, &dropped)
			mu.Lock()
			for _, x := range s {
				if !x.intended.Before(measureFrom) {
					samples = append(samples, x)
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		res.run.Error = "interrupted"
	}
	// The figures are built after the loop, from its slice: the loop itself
	// recorded nothing.
	rec := bench.NewRecorder(0)
	for _, s := range samples {
		rec.Record(bench.TxnTotalDuration, s.intended, s.d)
		rec.Add(bench.Transactions, s.intended.Add(s.d), 1)
	}
	rec.Add(bench.FailedIterations, end, failed.Load())
	rec.Add(bench.DroppedIterations, end, dropped.Load())
	res.snap = rec.Snapshot()
	res.run = bench.FillRun(res.run, res.snap, nil)
	for _, s := range samples {
		res.bare = append(res.bare, s.d)
	}
	if _, err := res.snap.WriteHGRMs(dir, ""); err != nil {
		o.Log.Warn("write hgrm", "err", err)
	}
	return res
}

// bareWorker is one bare loop's two clients.
type bareWorker struct {
	// sync produces with ProduceSync (no linger) instead of ctp's pattern.
	sync               bool
	slot               int
	consumer, producer *kgo.Client
	batch              int
	seq                int64
}

func openBareWorker(ctx context.Context, cfg ctp.WorkerConfig) (*bareWorker, error) {
	w := &bareWorker{slot: cfg.Slot, batch: int(cfg.MaxRecords)}
	copts, err := cfg.ConsumerOpts()
	if err != nil {
		return nil, fmt.Errorf("open bare loop: %w", err)
	}
	popts, err := cfg.ProducerOpts()
	if err != nil {
		return nil, fmt.Errorf("open bare loop: %w", err)
	}
	w.consumer, err = kgo.NewClient(copts...)
	if err != nil {
		return nil, fmt.Errorf("open bare loop: %w", err)
	}
	w.producer, err = kgo.NewClient(popts...)
	if err != nil {
		w.close()
		return nil, fmt.Errorf("open bare loop: %w", err)
	}
	ictx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, _, err := w.producer.ProducerID(ictx); err != nil {
		w.close()
		return nil, fmt.Errorf("open bare loop: init producer id: %w", err)
	}
	return w, nil
}

// bareSchedule paces one bare worker: at rate/workers, offset by worker/rate
// so the workers' starts interleave, until end; back to back when rate is 0.
type bareSchedule struct {
	start           time.Time
	worker, workers int
	rate            float64
	// measureFrom is the end of the warm-up: drops before it are not counted.
	measureFrom, end time.Time
}

func (s bareSchedule) at(seq int64) time.Time {
	per := s.rate / float64(s.workers)
	return s.start.Add(time.Duration((float64(s.worker)/s.rate + float64(seq)/per) * float64(time.Second)))
}

// loop runs transactions until the schedule ends or ctx does. Open loop, it
// keeps the Driver's rule so the two compare under overload too: ticks that
// arrive while a transaction runs wait in a backlog of one second's worth
// (at least one); a tick that finds it full is dropped, not run late.
func (w *bareWorker) loop(ctx context.Context, s bareSchedule, processed, failed, dropped *atomic.Int64) []bareSample {
	var out []bareSample
	if s.rate <= 0 {
		for ctx.Err() == nil && time.Now().Before(s.end) {
			intended := time.Now()
			committed, ok := w.transact(ctx, processed)
			if !ok {
				failed.Add(1)
				continue
			}
			out = append(out, bareSample{intended: intended, d: committed.Sub(intended)})
		}
		return out
	}
	backlog := max(1, int(math.Ceil(s.rate/float64(s.workers))))
	var queue []int64
	next := int64(0) // the first tick not yet arrived
	for ctx.Err() == nil {
		// Between two transactions nothing leaves the queue: the ticks that
		// arrived meanwhile fill it, and the rest found it full.
		now := time.Now()
		for ; s.at(next).Before(s.end) && !s.at(next).After(now); next++ {
			if len(queue) < backlog {
				queue = append(queue, next)
			} else if !s.at(next).Before(s.measureFrom) {
				dropped.Add(1)
			}
		}
		if len(queue) == 0 {
			if !s.at(next).Before(s.end) {
				return out
			}
			select {
			case <-ctx.Done():
				return out
			case <-time.After(time.Until(s.at(next))):
			}
			continue
		}
		intended := s.at(queue[0])
		queue = queue[1:]
		committed, ok := w.transact(ctx, processed)
		if !ok {
			failed.Add(1)
			continue
		}
		out = append(out, bareSample{intended: intended, d: committed.Sub(intended)})
	}
	return out
}

// transact polls until a batch comes, processes it in one transaction, and
// ACCEPTs it after the commit; it returns when the commit returned.
func (w *bareWorker) transact(ctx context.Context, processed *atomic.Int64) (time.Time, bool) {
	var batch []*kgo.Record
	for len(batch) == 0 {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		batch = w.consumer.PollRecords(pctx, w.batch).Records()
		cancel()
		if ctx.Err() != nil {
			return time.Time{}, false
		}
	}
	processed.Add(int64(len(batch)))
	w.seq++
	if err := w.producer.BeginTransaction(); err != nil {
		w.ack(ctx, kgo.AckRelease, batch)
		return time.Time{}, false
	}
	txn := []byte(strconv.FormatInt(w.seq, 10))
	worker := []byte(fmt.Sprintf("bare%d", w.slot))
	outs := make([]*kgo.Record, len(batch))
	for i, r := range batch {
		outs[i] = &kgo.Record{Key: r.Key, Value: []byte(ctp.Transform(string(r.Value))), Headers: []kgo.RecordHeader{
			{Key: ctp.HeaderSrc, Value: []byte(ctp.Src(r.Topic, r.Partition, r.Offset))},
			{Key: ctp.HeaderWorker, Value: worker}, {Key: ctp.HeaderTxn, Value: txn}}}
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var err error
	if w.sync {
		err = w.producer.ProduceSync(rctx, outs...).FirstErr()
	} else {
		err = w.produceAll(rctx, outs)
	}
	if err == nil {
		err = w.producer.Flush(rctx)
	}
	commit := kgo.TryCommit
	if err != nil {
		commit = kgo.TryAbort
		_ = w.producer.AbortBufferedRecords(rctx)
	}
	endErr := w.producer.EndTransaction(rctx, commit)
	committed := time.Now()
	if err != nil || endErr != nil {
		w.ack(ctx, kgo.AckRelease, batch)
		return time.Time{}, false
	}
	w.ack(ctx, kgo.AckAccept, batch)
	return committed, true
}

// produceAll is ctp's produce pattern: Produce every record, then wait for
// every promise (kgo sends when the linger expires).
func (w *bareWorker) produceAll(ctx context.Context, outs []*kgo.Record) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	wg.Add(len(outs))
	for _, r := range outs {
		w.producer.Produce(ctx, r, func(_ *kgo.Record, err error) {
			defer wg.Done()
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return firstErr
}

func (w *bareWorker) ack(ctx context.Context, status kgo.AckStatus, batch []*kgo.Record) {
	w.consumer.MarkAcks(status, batch...)
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = w.consumer.FlushAcks(fctx)
}

func (w *bareWorker) close() {
	if w.producer != nil {
		w.producer.Close()
	}
	if w.consumer != nil {
		w.consumer.Close()
	}
}
