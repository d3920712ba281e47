package benchrun

import (
	"context"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// benchMetrics are the latency metrics compared between modes, in report order.
var benchMetrics = []string{bench.TxnTotalDuration, bench.TxnCommitDuration, bench.ShareAckDuration, bench.E2ELatency}

// benchEnv is what every run of a bench shares.
type benchEnv struct {
	o     *Options
	c     cluster.Cluster
	runID string
	admin *kgo.Client
	// fault is the catalog row of --fault (a cluster fault), nil for none.
	fault *scenarios.Scenario
	// brokerNote says which broker the backend runs (the settings' "broker").
	brokerNote string
}

// benchPoint is a sweep point beside the batch size.
type benchPoint struct {
	partitions int
	latency    time.Duration
	// rate is the target in transactions per second over all workers; 0 is
	// the closed loop.
	rate float64
}

// name is the point in file names: "lat5ms-p4-r20", "lat0s-p4-closed".
func (p benchPoint) name() string {
	return fmt.Sprintf("lat%s-p%d-%s", p.latency, p.partitions, rateName(p.rate))
}

// rateName spells a rate in file names and tags: "20", "2.5", "closed".
func rateName(rate float64) string {
	if rate <= 0 {
		return "closed"
	}
	return strconv.FormatFloat(rate, 'f', -1, 64)
}

// benchPlan is one run of the bench.
type benchPlan struct {
	index       int
	point       benchPoint
	batch       int
	repeat      int
	mode        ctp.AckMode
	realization string
	seed        int64
	// bare: the harness-overhead run (a bare franz-go loop, explicit mode);
	// bareSync its variant that produces with ProduceSync.
	bare, bareSync bool
}

// label is the plan's mode as reports name it ("transactional/ledger", "bare").
func (p benchPlan) label() string {
	switch {
	case p.bareSync:
		return "bare-sync"
	case p.bare:
		return "bare"
	case p.realization != "":
		return string(p.mode) + "/" + p.realization
	}
	return string(p.mode)
}

// dirName names the run's directory under runs/.
func (p benchPlan) dirName() string {
	l := p.label()
	if p.realization != "" {
		l = string(p.mode) + "-" + p.realization
	}
	return fmt.Sprintf("%03d-%s-b%d-%s-r%d", p.index+1, l, p.batch, p.point.name(), p.repeat)
}

// benchResult is what one run left.
type benchResult struct {
	plan    benchPlan
	run     result.BenchRun
	snap    *bench.Snapshot
	windows []bench.Window
	// harness: run.Error is the suite's failure (setup, seeding, clients),
	// not a measurement.
	harness bool
	// bare is the bare loop's txn_total_duration values (bare runs only).
	bare []time.Duration
	// paired is the instrumented side of a paired overhead run (runPaired):
	// the explicit loop measured in the slices between the bare loop's.
	paired *bench.Snapshot
}

// measured is what a run's iterations leave for after the load: each
// committed transaction's intended start, for e2e_latency.
type measured struct {
	mu      sync.Mutex
	started map[txnKey]time.Time
}

func (m *measured) add(k txnKey, intended time.Time) {
	m.mu.Lock()
	m.started[k] = intended
	m.mu.Unlock()
}

// runOne runs one plan to its result; it never fails: what goes wrong is the
// result's Error.
func runOne(ctx context.Context, env *benchEnv, p benchPlan, dir string) benchResult {
	res := benchResult{plan: p, run: result.BenchRun{Mode: string(p.mode), Realization: p.realization, Batch: p.batch,
		Repeat: p.repeat, Seed: p.seed, DurationS: env.o.Duration.Seconds()}}
	// The sweep point is named only when there is more than one (the
	// settings hold the single values otherwise), so tables stay plain.
	if env.o.sweeps() {
		res.run.Partitions, res.run.LinkLatency, res.run.Rate = p.point.partitions, p.point.latency.String(), rateName(p.point.rate)
	}
	if p.bare {
		return runBare(ctx, env, p, dir, res)
	}
	r := &benchRunner{env: env, plan: p, dir: dir}
	err := r.run(ctx)
	res.snap = r.rec.Snapshot()
	res.windows = r.windows()
	res.run.Started = r.started
	res.run = bench.FillRun(res.run, res.snap, res.windows)
	res.run.BrokerRequests, res.run.BrokerRequestsError = r.brokerRequests, r.brokerRequestsErr
	if err != nil {
		res.run.Error = err.Error()
		res.harness = r.harness && ctx.Err() == nil
		if ctx.Err() != nil {
			res.run.Error = "interrupted: " + err.Error()
		}
	} else if n := res.run.Counters[bench.Transactions]; n == 0 {
		res.run.Error = "no transaction committed during the measurement"
	}
	if err := res.snap.WriteFile(filepath.Join(dir, "snapshot.json")); err != nil {
		env.o.Log.Warn("write snapshot", "err", err)
	}
	if _, err := res.snap.WriteHGRMs(dir, ""); err != nil {
		env.o.Log.Warn("write hgrm", "err", err)
	}
	return res
}

// benchRunner is the state of one measured run.
type benchRunner struct {
	env  *benchEnv
	plan benchPlan
	dir  string
	topo ctp.Topology

	// rec receives the measured phase; warm-up goes to a recorder thrown away.
	rec       *bench.Recorder
	started   time.Time
	harness   bool
	processed atomic.Int64 // input records polled (for the feeder)
	committed atomic.Int64 // records committed in the measured phase (fault progress)
	done      measured

	// Set by prepare: the run's workers, input feeder and tail reader.
	workers []*benchWorker
	feed    *feeder
	tail    *tailReader

	// brokerRequests: the measured phase as the brokers timed it (or why not).
	brokerRequests    []result.BrokerRequest
	brokerRequestsErr string

	faultMu     sync.Mutex
	faultReport faults.Report
	faultEnd    time.Time
}

func (r *benchRunner) harnessErr(err error) error {
	r.harness = true
	return err
}

func (r *benchRunner) run(ctx context.Context) error {
	o := r.env.o
	r.rec = bench.NewRecorder(0)
	cleanup, err := r.prepare(ctx, "")
	defer cleanup()
	if err != nil {
		return err
	}
	workers := r.workers
	if o.Warmup > 0 {
		if _, err := r.drive(ctx, workers, bench.NewRecorder(0), o.Warmup, false); err != nil {
			return err
		}
	}
	brokers := readBrokerTimesBefore(ctx, r.env.c)
	r.started = time.Now()
	stopFault := r.startFault(ctx)
	stats, err := r.drive(ctx, workers, r.rec, o.Duration, true)
	faultErr := stopFault()
	r.brokerRequests, r.brokerRequestsErr = brokers.since(ctx)
	if err != nil {
		return err
	}
	if faultErr != nil {
		return r.harnessErr(faultErr)
	}
	for _, w := range workers {
		w.close()
	}
	if stats.FirstError != nil {
		o.Log.Info("iterations failed", "run", r.plan.dirName(), "failed", stats.Failed, "first", stats.FirstError)
	}
	r.recordE2E(ctx, r.tail)
	if err := r.feed.close(); err != nil {
		return r.harnessErr(err)
	}
	return nil
}

// prepare sets up what a run measures on: its own topics (named with suffix
// after the run's prefix, so that two sides of one run do not share them),
// the seeded input and its feeder, the tail reader, and the workers, opened.
// The returned cleanup closes them in reverse order and drops the topics;
// it is never nil, and must be called also when prepare failed.
func (r *benchRunner) prepare(ctx context.Context, suffix string) (cleanup func(), err error) {
	o := r.env.o
	var undo []func()
	cleanup = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	r.done.started = map[txnKey]time.Time{}
	if err := os.MkdirAll(filepath.Join(r.dir, "histories"), 0o755); err != nil {
		return cleanup, r.harnessErr(fmt.Errorf("create run directory: %w", err))
	}
	topo, err := setupTopologyAs(ctx, r.env, r.plan, suffix)
	if err != nil {
		return cleanup, r.harnessErr(err)
	}
	undo = append(undo, func() { dropTopology(ctx, r.env, topo) })
	r.topo = topo
	feed, err := newFeeder(r.env.c, topo.InputTopic, planInput(o, r.plan.batch, r.plan.point.rate), &r.processed)
	if err != nil {
		return cleanup, r.harnessErr(err)
	}
	r.feed = feed
	undo = append(undo, func() { _ = feed.close() })
	sctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	err = feed.seed(sctx)
	cancel()
	if err != nil {
		return cleanup, r.harnessErr(err)
	}
	tail, err := startTailReader(ctx, r.env.c, topo.OutputTopic)
	if err != nil {
		return cleanup, r.harnessErr(err)
	}
	r.tail = tail
	undo = append(undo, tail.close)
	r.workers = make([]*benchWorker, o.Workers)
	undo = append(undo, func() {
		for _, w := range r.workers {
			if w != nil {
				w.close()
			}
		}
	})
	for i := range r.workers {
		w := &benchWorker{base: r.workerConfig(i + 1), client: o.Clients[0]}
		if err := w.open(ctx); err != nil {
			return cleanup, r.harnessErr(err)
		}
		r.workers[i] = w
	}
	feed.topUp(ctx)
	return cleanup, nil
}

// setupTopology creates a run's own topics and share group.
func setupTopology(ctx context.Context, env *benchEnv, p benchPlan) (ctp.Topology, error) {
	return setupTopologyAs(ctx, env, p, "")
}

// setupTopologyAs is setupTopology with suffix after the run's prefix: the
// two sides of a paired overhead run each have their own topics and group.
func setupTopologyAs(ctx context.Context, env *benchEnv, p benchPlan, suffix string) (ctp.Topology, error) {
	rf, minISR := int16(3), 2
	if n := len(env.c.Nodes()); n < 3 {
		rf, minISR = int16(n), 1
	}
	topo := ctp.NewTopology(fmt.Sprintf("sb-%s-%03d%s", env.runID, p.index+1, suffix), int32(p.point.partitions), rf, minISR)
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := ctp.Setup(sctx, env.admin, topo, ctp.GroupConfig{Lock: harness.DefaultLock, DeliveryLimit: harness.DeliveryLimit}); err != nil {
		return topo, fmt.Errorf("set up run: %w", err)
	}
	return topo, nil
}

// dropTopology deletes a finished run's topics and share group (its histories
// stay in the run directory), unless --keep-topics: a bench creates three
// replicated topics per run, and a cluster that piles up hundreds of
// partitions gets slower as it goes, a drift the later runs would pay for.
// Deferred: it runs after the workers and the tail reader have closed.
func dropTopology(ctx context.Context, env *benchEnv, topo ctp.Topology) {
	if env.o.KeepTopics {
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := ctp.Teardown(dctx, env.admin, topo); err != nil {
		env.o.Log.Warn("tear down run", "prefix", topo.Prefix, "err", err)
	}
}

func (r *benchRunner) workerConfig(slot int) ctp.WorkerConfig {
	return benchWorkerConfig(r.env, r.topo, r.plan, slot, r.dir)
}

// benchWorkerConfig is worker slot's configuration in plan; the bare loop
// builds its clients from it too (ctp.WorkerConfig.ConsumerOpts and
// ProducerOpts), so both loops use the same client settings.
func benchWorkerConfig(env *benchEnv, topo ctp.Topology, plan benchPlan, slot int, dir string) ctp.WorkerConfig {
	return ctp.WorkerConfig{
		Client:    cluster.ClientConfigOf(env.c),
		Bootstrap: env.c.Bootstrap(), Group: topo.Group, InputTopic: topo.InputTopic,
		OutputTopic: topo.OutputTopic, LedgerTopic: topo.LedgerTopic,
		TransactionalID: topo.TransactionalID(slot),
		Mode:            plan.mode, Realization: plan.realization,
		Consumer:             benchConsumer(plan, env.o.Consumer),
		AddShareAcksToTxnKey: env.o.KIP1289Keys.AddShareAcksToTxn, TxnShareAcknowledgeKey: env.o.KIP1289Keys.TxnShareAcknowledge, MemberTags: env.o.MemberTags,
		Slot: slot, Incarnation: 1,
		HistoryPath: filepath.Join(dir, "histories"),
		MaxRecords:  int32(plan.batch),
		TxnTimeout:  ctp.Duration(benchTxnTimeout),
	}
}

// drive runs every worker under its own Driver at rate/Workers for d, the
// workers' schedules staggered by one interval of the total rate, so
// transactions start evenly spread rather than in bursts of Workers.
func (r *benchRunner) drive(ctx context.Context, workers []*benchWorker, rec *bench.Recorder, d time.Duration, measure bool) (bench.DriverStats, error) {
	rate := r.plan.point.rate
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total bench.DriverStats
	)
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sched := bench.Schedule{Rate: rate / float64(len(workers)), Duration: d}
			if rate > 0 && i > 0 {
				offset := time.Duration(float64(i) * float64(time.Second) / rate)
				select {
				case <-ctx.Done():
					return
				case <-time.After(offset):
				}
				sched.Duration -= offset
			}
			drv := &bench.Driver{Schedule: sched, Recorder: rec, Metric: bench.IterationDuration,
				Concurrency: 1, Grace: driverGrace}
			st, _ := drv.Run(ctx, r.iteration(w, rec, measure))
			mu.Lock()
			total.Scheduled += st.Scheduled
			total.Started += st.Started
			total.Failed += st.Failed
			total.Dropped += st.Dropped
			if total.FirstError == nil {
				total.FirstError = st.FirstError
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total, ctx.Err()
}

// driverGrace bounds how long iterations may run on past the schedule's end.
const driverGrace = 15 * time.Second

// iteration is one transaction of w: poll until a batch comes (empty polls are
// retried inside the iteration, so their wait counts as the transaction's
// latency), process it, commit, ack as the mode says. Latencies count from
// the tick's intended start (coordinated-omission correct).
func (r *benchRunner) iteration(w *benchWorker, rec *bench.Recorder, measure bool) bench.Iteration {
	stalled := false
	return func(ctx context.Context, t bench.Tick) error {
		if st := r.env.o.testStall; measure && st.d > 0 && !stalled && w.base.Slot == 1 && !t.Intended.Before(r.started.Add(st.after)) {
			stalled = true
			time.Sleep(st.d)
		}
		for {
			res, err := w.step(ctx)
			if err != nil {
				return err
			}
			r.processed.Add(int64(res.Records))
			switch res.Outcome {
			case history.OK:
				end := time.Now()
				at := t.Intended
				rec.Record(bench.TxnTotalDuration, at, end.Add(-res.Ack).Sub(t.Intended))
				rec.Record(bench.TxnServiceDuration, at, res.Total)
				rec.Record(bench.TxnCommitDuration, at, res.Commit)
				if res.Ack > 0 {
					rec.Record(bench.ShareAckDuration, at, res.Ack)
				}
				if res.TxnAcks > 0 {
					rec.Record(bench.TxnAcksDuration, at, res.TxnAcks)
				}
				// Native only: its acks' time, request by request (no map on
				// this path: it runs once per transaction).
				if res.AddShareAcksToTxn > 0 {
					rec.Record(bench.TxnAcksPrepareDuration, at, res.AcksPrepare)
					rec.Record(bench.AddShareAcksToTxnDuration, at, res.AddShareAcksToTxn)
					rec.Record(bench.TxnShareAcknowledgeDuration, at, res.TxnShareAcknowledge)
				}
				rec.Add(bench.Transactions, end, 1)
				rec.Add(bench.Records, end, int64(res.Records))
				if measure {
					r.committed.Add(int64(res.Records))
					r.done.add(txnKey{w.worker.Name(), w.worker.TxnSeq()}, t.Intended)
				}
				return nil
			case history.Fail, history.Info:
				return fmt.Errorf("commit of a %d-record batch: %s", res.Records, res.Outcome)
			}
			// Nothing committed: an empty poll, a batch whose acks were
			// already committed (ledger pre-check), or an abort. Poll again.
			if res.Records == 0 {
				rec.Add(bench.EmptyPolls, time.Now(), 1)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
}

// recordE2E waits for the tail reader to see every committed transaction of
// the measured phase, then records e2e_latency per output record: from its
// transaction's intended start to when the tail reader first saw it.
func (r *benchRunner) recordE2E(ctx context.Context, tail *tailReader) {
	r.done.mu.Lock()
	defer r.done.mu.Unlock()
	missing := tail.waitFor(ctx, r.done.started, 20*time.Second)
	if missing > 0 {
		r.env.o.Log.Warn("outputs never seen by the tail reader", "run", r.plan.dirName(), "transactions", missing)
		r.rec.Add("e2e_unseen_transactions", time.Now(), int64(missing))
	}
	for k, intended := range r.done.started {
		v, ok := tail.visibleOf(k)
		if !ok {
			continue
		}
		d := v.at.Sub(intended)
		for range v.records {
			r.rec.Record(bench.E2ELatency, intended, d)
		}
	}
}

// startFault injects the bench's cluster fault beside the measured load; the
// returned func cancels it, waits for it to heal, and returns its error.
func (r *benchRunner) startFault(ctx context.Context) func() error {
	f := r.env.fault
	if f == nil {
		return func() error { return nil }
	}
	fctx, cancel := context.WithCancel(ctx)
	var ferr error
	done := make(chan struct{})
	expected := int64(r.plan.point.rate * r.env.o.Duration.Seconds() * float64(r.plan.batch))
	go func() {
		defer close(done)
		env := faults.Env{Name: f.Name, Cluster: r.env.c, Topology: r.topo, Workers: r.env.o.Workers, Rand: rand.New(rand.NewPCG(uint64(r.plan.seed), uint64(r.plan.index))),

			// Progress is the measured load's, so a fault that waits for
			// "a fifth of the input" fires a fifth into the run.
			Progress: func(context.Context) (int64, int64) {
				total := expected
				if total <= 0 { // closed loop: by time instead
					el := time.Since(r.started)
					return int64(el), int64(r.env.o.Duration)
				}
				return r.committed.Load(), total
			}}
		rep, err := faults.Inject(fctx, f.Cluster.Triggered(), env)
		if err != nil && fctx.Err() == nil {
			ferr = fmt.Errorf("inject %s: %w", f.Name, err)
		}
		r.faultMu.Lock()
		r.faultReport, r.faultEnd = rep, time.Now()
		r.faultMu.Unlock()
	}()
	return func() error {
		cancel()
		<-done
		// A fault that healed every link took the sweep's latency with it.
		if r.plan.point.latency > 0 {
			if err := setLinkLatency(context.WithoutCancel(ctx), r.env.c, r.plan.point.latency); err != nil {
				return err
			}
		}
		return ferr
	}
}

// windows are the fault's firings from its report, each until the first
// heal after it; a firing without a heal lasts until Inject returned.
func (r *benchRunner) windows() []bench.Window {
	r.faultMu.Lock()
	defer r.faultMu.Unlock()
	var out []bench.Window
	for _, f := range r.faultReport.Fired {
		w := bench.Window{Name: r.faultReport.Name, Start: f.At, End: r.faultEnd}
		for _, h := range r.faultReport.Healed {
			if !h.Before(f.At) {
				w.End = h
				break
			}
		}
		out = append(out, w)
	}
	return out
}

// setLinkLatency sets the latency on every link of the cluster.
func setLinkLatency(ctx context.Context, c cluster.Cluster, d time.Duration) error {
	n, ok := c.(cluster.Network)
	if !ok {
		if d == 0 {
			return nil
		}
		return fmt.Errorf("set link latency: %w", cluster.ErrUnsupported)
	}
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return n.SetLatency(lctx, d, 0)
}

// benchWorker is one worker slot of a run: a ctp.Worker driven in process,
// replaced by a new incarnation (same transactional id, which fences the
// old one) when its loop fails, as a crashed worker process would be.
type benchWorker struct {
	base ctp.WorkerConfig
	// client is the worker's client (workerset.Clients; "": the default).
	client string
	worker stepper
	inc    int
}

func (w *benchWorker) open(ctx context.Context) error {
	w.inc++
	cfg := w.base
	cfg.Incarnation = w.inc
	cfg.HistoryPath = filepath.Join(w.base.HistoryPath, cfg.Name()+".jsonl")
	wk, err := openStepper(ctx, w.client, cfg)
	if err != nil {
		return fmt.Errorf("start worker %s: %w", cfg.Name(), err)
	}
	w.worker = wk
	return nil
}

// step runs one Step, reopening the worker first if its last loop failed.
func (w *benchWorker) step(ctx context.Context) (ctp.StepResult, error) {
	if w.worker == nil {
		if w.inc >= maxReopens {
			return ctp.StepResult{}, fmt.Errorf("worker slot %d failed %d times", w.base.Slot, w.inc)
		}
		if err := w.open(ctx); err != nil {
			return ctp.StepResult{}, err
		}
	}
	res, err := w.worker.Step(ctx)
	if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
		w.worker.Close(err)
		w.worker = nil
	}
	return res, err
}

func (w *benchWorker) close() {
	if w.worker != nil {
		w.worker.Close(nil)
		w.worker = nil
	}
}

// maxReopens bounds how often a bench worker slot is reopened after its loop
// failed: a slot that keeps failing must end the run, not spin.
const maxReopens = 20

// benchConsumer is a run's share consumer: the transactional mode's follows
// its realization (ctp.WorkerConfig's default), the others take --consumer.
func benchConsumer(p benchPlan, asked string) string {
	if p.mode == ctp.Transactional {
		return ""
	}
	return asked
}
