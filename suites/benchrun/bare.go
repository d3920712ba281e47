package benchrun

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
// loop paced by a sleep, each transaction's time kept in a slice.
//
// The bare loop makes the same client calls as ctp's worker (Produce each
// output, wait for every promise, Flush, commit, MarkAcks + FlushAcks) on
// clients built from the same options (ctp.WorkerConfig.ConsumerOpts and
// ProducerOpts: linger 0, the same fetch sizes and wait, metadata minimum
// age, timeouts), paced by the Driver's rule (the same rate per worker, the
// same stagger, a backlog of one second's ticks, drops past it), and
// txn_total_duration is the same interval: from the tick's intended start to
// the commit returned (poll waits included). What is left is the harness:
// the history (about ten events written per transaction, each one write(2),
// three of them between the commit's return and the end of the instrumented
// figure), the Driver's goroutine hand-off, the recorder, the ctp worker's
// own bookkeeping (arm points, link-breaker dialer, produce watchdog).
//
// Paired: the bare loop and the instrumented loop (the same benchRunner, Driver
// and ctp.Worker the explicit runs use) run in one plan, each on its own
// topics, input and tail reader. On two cores shared with other work the
// run-to-run spread of a p50 is 10-20 %, far above the few per cent to
// measure, so the two run at once, each at the full rate, their ticks
// interleaved (instrumented, bare, instrumented, ... 1/(2 x rate) apart):
// load drift longer than that gap hits both alike, and the ratio of the two
// p50s of one run is the harness, not the minute it ran in. The cluster
// carries twice the rate meanwhile, both sides alike. Closed loop (rate 0)
// they alternate in slices of pairSlice instead, never at once.
//
// The "bare-sync" variant produces with ProduceSync instead, alone: the
// difference between the two is what the worker's produce pattern costs, not
// the harness.

// pairSlice is how long one side of a closed-loop paired overhead run drives
// its load before the other side takes over: short against the load drift of
// a shared machine, long against the slice switch (the in-flight transaction
// finishes first).
const pairSlice = time.Second

// bareSample is one bare transaction: its intended start, its latency from
// there to the commit returned, and its service time (begin to commit
// returned, txn_service_duration's interval); polled is when its poll
// returned (for the time line).
type bareSample struct {
	intended, polled time.Time
	d                time.Duration
	service          time.Duration
}

// bareSide is one bare loop's run: its own topics, input, tail reader and
// workers. The instrumented runs read their outputs as they commit (the tail
// reader, for e2e_latency): a read_committed consumer long-polling the same
// brokers. The bare loop runs beside the same reader, so the ratio of the two
// is the loop's instrumentation, not the e2e measurement's load on the
// cluster.
type bareSide struct {
	env       *benchEnv
	plan      benchPlan
	processed atomic.Int64
	workers   []*bareWorker
	failed    atomic.Int64
	dropped   atomic.Int64
}

// openBareSide sets up a bare side; cleanup is never nil and must be called.
func openBareSide(ctx context.Context, env *benchEnv, p benchPlan, suffix string) (*bareSide, func(), error) {
	o := env.o
	b := &bareSide{env: env, plan: p}
	var undo []func()
	cleanup := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	topo, err := setupTopologyAs(ctx, env, p, suffix)
	if err != nil {
		return b, cleanup, err
	}
	undo = append(undo, func() { dropTopology(ctx, env, topo) })
	feed, err := newFeeder(env.c, topo.InputTopic, planInput(o, p.batch, p.point.rate), &b.processed)
	if err != nil {
		return b, cleanup, err
	}
	undo = append(undo, func() { _ = feed.close() })
	sctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	err = feed.seed(sctx)
	cancel()
	if err != nil {
		return b, cleanup, err
	}
	tail, err := startTailReader(ctx, env.c, topo.OutputTopic)
	if err != nil {
		return b, cleanup, err
	}
	undo = append(undo, tail.close)
	b.workers = make([]*bareWorker, o.Workers)
	undo = append(undo, func() {
		for _, w := range b.workers {
			if w != nil {
				w.close()
			}
		}
	})
	for i := range b.workers {
		// The bare side's directory holds no histories: nothing is written.
		w, err := openBareWorker(ctx, benchWorkerConfig(env, topo, p, i+1, ""))
		if err != nil {
			return b, cleanup, err
		}
		w.sync = p.bareSync
		b.workers[i] = w
	}
	feed.topUp(ctx)
	return b, cleanup, nil
}

// drive runs every worker's loop from start for d; measure false is a
// warm-up (nothing kept, nothing counted).
func (b *bareSide) drive(ctx context.Context, start time.Time, d time.Duration, measure bool) []bareSample {
	end := start.Add(d)
	from := start
	if !measure {
		from = end
	}
	var (
		mu      sync.Mutex
		samples []bareSample
		wg      sync.WaitGroup
	)
	for i, w := range b.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w.loop(ctx, bareSchedule{start: start, worker: i, workers: len(b.workers), rate: b.plan.point.rate,
				measureFrom: from, end: end}, &b.processed, &b.failed, &b.dropped)
			mu.Lock()
			for _, x := range s {
				if !x.intended.Before(from) {
					samples = append(samples, x)
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return samples
}

// record fills res with the bare side's figures, built after the loop from
// its samples: the loop itself recorded nothing.
func (b *bareSide) record(res benchResult, samples []bareSample, end time.Time, dir string) benchResult {
	rec := bench.NewRecorder(0)
	for _, s := range samples {
		rec.Record(bench.TxnTotalDuration, s.intended, s.d)
		rec.Record(bench.TxnServiceDuration, s.intended, s.service)
		rec.Add(bench.Transactions, s.intended.Add(s.d), 1)
	}
	rec.Add(bench.FailedIterations, end, b.failed.Load())
	rec.Add(bench.DroppedIterations, end, b.dropped.Load())
	res.snap = rec.Snapshot()
	res.run = bench.FillRun(res.run, res.snap, nil)
	for _, s := range samples {
		res.bare = append(res.bare, s.d)
	}
	if _, err := res.snap.WriteHGRMs(dir, ""); err != nil {
		b.env.o.Log.Warn("write hgrm", "err", err)
	}
	return res
}

func runBare(ctx context.Context, env *benchEnv, p benchPlan, dir string, res benchResult) benchResult {
	res.run.Mode = p.label()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.run.Error = err.Error()
		res.harness = true
		return res
	}
	if p.bareSync {
		return runBareAlone(ctx, env, p, dir, res)
	}
	return runPaired(ctx, env, p, dir, res)
}

// runBareAlone runs the bare loop by itself: warm-up, then the measurement.
func runBareAlone(ctx context.Context, env *benchEnv, p benchPlan, dir string, res benchResult) benchResult {
	o := env.o
	b, cleanup, err := openBareSide(ctx, env, p, "")
	defer cleanup()
	if err != nil {
		return failed(ctx, res, err)
	}
	if o.Warmup > 0 {
		b.drive(ctx, time.Now(), o.Warmup, false)
	}
	res.run.Started = time.Now()
	samples := b.drive(ctx, res.run.Started, o.Duration, true)
	if ctx.Err() != nil {
		res.run.Error = "interrupted"
	}
	return b.record(res, samples, time.Now(), dir)
}

// runPaired runs the bare loop and the instrumented explicit loop in
// alternating slices (see pairSlice): the bare side's figures go to res as a
// bare run's, the instrumented side's to res.paired (its histories, snapshot
// and .hgrm files under dir/instrumented).
func runPaired(ctx context.Context, env *benchEnv, p benchPlan, dir string, res benchResult) benchResult {
	o := env.o
	b, cleanupBare, err := openBareSide(ctx, env, p, "b")
	defer cleanupBare()
	if err != nil {
		return failed(ctx, res, err)
	}
	ip := p
	ip.bare = false
	ins := &benchRunner{env: env, plan: ip, dir: filepath.Join(dir, "instrumented"), rec: bench.NewRecorder(0)}
	cleanupIns, err := ins.prepare(ctx, "i")
	defer cleanupIns()
	if err != nil {
		return failed(ctx, res, err)
	}
	pr := &pairedRun{ctx: ctx, rate: p.point.rate, bare: b, ins: ins, warm: bench.NewRecorder(0)}
	if o.Warmup > 0 {
		if err := pr.load(o.Warmup, false); err != nil {
			res.run.Error = "interrupted"
			return res
		}
	}
	ins.started = time.Now()
	res.run.Started = ins.started
	if err := pr.load(o.Duration, true); err != nil {
		res.run.Error = "interrupted"
	}
	if pr.insFailed > 0 {
		o.Log.Info("iterations failed", "run", p.dirName(), "side", "instrumented", "failed", pr.insFailed)
	}
	res.paired = pr.writeFiles(dir, o)
	return b.record(res, pr.samples, time.Now(), dir)
}

// pairedRun is one paired overhead run: its two sides and what they
// measured.
type pairedRun struct {
	ctx  context.Context
	rate float64
	bare *bareSide
	ins  *benchRunner
	// warm receives the instrumented side's warm-up, thrown away.
	warm      *bench.Recorder
	samples   []bareSample
	insFailed int64
}

// load runs both sides over d (measure false: warm-up): at once in the open
// loop, in turn in the closed loop.
func (r *pairedRun) load(d time.Duration, measure bool) error {
	if r.rate <= 0 {
		return r.alternate(d, measure)
	}
	return r.together(d, measure)
}

// side runs one slice of one side.
func (r *pairedRun) side(bare bool, d time.Duration, measure bool) error {
	if bare {
		s := r.bare.drive(r.ctx, time.Now(), d, measure)
		if measure {
			r.samples = append(r.samples, s...)
		}
		return r.ctx.Err()
	}
	rec := r.warm
	if measure {
		rec = r.ins.rec
	}
	st, err := r.ins.drive(r.ctx, r.ins.workers, rec, d, measure)
	if measure {
		r.insFailed += st.Failed
	}
	return err
}

// together runs both sides at once over d, each at the full rate, the bare
// loop's ticks half an interval after the instrumented loop's: the
// transactions of the two alternate, 1/(2 x rate) apart, and overlap only
// when one outlasts that gap.
func (r *pairedRun) together(d time.Duration, measure bool) error {
	var (
		wg     sync.WaitGroup
		insErr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		insErr = r.side(false, d, measure)
	}()
	start := time.Now().Add(time.Duration(float64(time.Second) / (2 * r.rate)))
	s := r.bare.drive(r.ctx, start, d, measure)
	if measure {
		r.samples = append(r.samples, s...)
	}
	wg.Wait()
	return errors.Join(insErr, r.ctx.Err())
}

// alternate runs the sides in turn over d each, in slices of pairSlice: A B
// B A A B ..., so neither side is always the one that runs first after the
// other. For the closed loop, where two loops at once would take each
// other's CPU.
func (r *pairedRun) alternate(d time.Duration, measure bool) error {
	n := max(1, int((d+pairSlice-1)/pairSlice))
	for k := range n {
		sd := min(pairSlice, d-time.Duration(k)*pairSlice)
		first := k%2 == 1
		for _, bare := range []bool{first, !first} {
			if err := r.side(bare, sd, measure); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeFiles writes both sides' time lines and the instrumented side's
// snapshot and .hgrm files, and returns that snapshot.
func (r *pairedRun) writeFiles(dir string, o *Options) *bench.Snapshot {
	if err := writeIntended(r.ins.dir, r.ins.done.started); err != nil {
		o.Log.Warn("write time line", "err", err)
	}
	if err := writeBareTimeline(dir, r.samples); err != nil {
		o.Log.Warn("write time line", "err", err)
	}
	snap := r.ins.rec.Snapshot()
	if err := snap.WriteFile(filepath.Join(r.ins.dir, "snapshot.json")); err != nil {
		o.Log.Warn("write snapshot", "err", err)
	}
	if _, err := snap.WriteHGRMs(r.ins.dir, ""); err != nil {
		o.Log.Warn("write hgrm", "err", err)
	}
	return snap
}

// failed is res failed by err: the suite's failure unless the bench was
// interrupted.
func failed(ctx context.Context, res benchResult, err error) benchResult {
	res.run.Error = err.Error()
	res.harness = ctx.Err() == nil
	return res
}

// bareWorker is one bare loop's two clients.
type bareWorker struct {
	// sync produces with ProduceSync (no linger) instead of ctp's pattern.
	sync bool
	// name is the worker's, in the outputs' worker header: the records are
	// the instrumented worker's byte for byte.
	name               string
	consumer, producer *kgo.Client
	batch              int
	seq                int64
}

func openBareWorker(ctx context.Context, cfg ctp.WorkerConfig) (*bareWorker, error) {
	w := &bareWorker{name: cfg.Name(), batch: int(cfg.MaxRecords)}
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
			polled, begun, committed, ok := w.transact(ctx, processed)
			if !ok {
				failed.Add(1)
				continue
			}
			out = append(out, bareSample{intended: intended, polled: polled, d: committed.Sub(intended), service: committed.Sub(begun)})
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
		polled, begun, committed, ok := w.transact(ctx, processed)
		if !ok {
			failed.Add(1)
			continue
		}
		out = append(out, bareSample{intended: intended, polled: polled, d: committed.Sub(intended), service: committed.Sub(begun)})
	}
	return out
}

// transact polls until a batch comes, processes it in one transaction, and
// ACCEPTs it after the commit; it returns when its poll returned, when the
// transaction began and when its commit returned.
func (w *bareWorker) transact(ctx context.Context, processed *atomic.Int64) (polled, begun, committed time.Time, ok bool) {
	var batch []*kgo.Record
	for len(batch) == 0 {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		batch = w.consumer.PollRecords(pctx, w.batch).Records()
		cancel()
		if ctx.Err() != nil {
			return time.Time{}, time.Time{}, time.Time{}, false
		}
	}
	polled = time.Now()
	processed.Add(int64(len(batch)))
	w.seq++
	begun = time.Now()
	if err := w.producer.BeginTransaction(); err != nil {
		w.ack(ctx, kgo.AckRelease, batch)
		return time.Time{}, time.Time{}, time.Time{}, false
	}
	txn := []byte(strconv.FormatInt(w.seq, 10))
	worker := []byte(w.name)
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
	committed = time.Now()
	if err != nil || endErr != nil {
		w.ack(ctx, kgo.AckRelease, batch)
		return time.Time{}, time.Time{}, time.Time{}, false
	}
	w.ack(ctx, kgo.AckAccept, batch)
	return polled, begun, committed, true
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
