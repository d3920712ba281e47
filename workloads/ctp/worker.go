package ctp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/history"
)

// NewTxnAcker builds the transactional mode's realization for a worker. The
// worker role's main passes it in, so that this package does not depend on the
// KIP-1289 package (which depends on this one for the TxnAcker seam).
// consumer is kgo's share-consumer client, nil on our share consumer
// (WorkerConfig.Consumer).
type NewTxnAcker func(ctx context.Context, cfg WorkerConfig, consumer *kgo.Client) (TxnAcker, error)

// Worker runs the CTP loop: poll a small batch from the share group, produce
// one output per record in a transaction, commit, and acknowledge as the mode
// says. Every step is appended to the history before the next one starts.
type Worker struct {
	cfg      WorkerConfig
	rec      *history.Recorder
	src      ShareSource
	producer *kgo.Client
	acker    TxnAcker
	deps     Deps

	breaker *linkBreaker

	last StepResult

	// resumed: this incarnation was frozen by its stop fault and continued,
	// so another incarnation may own its transactional id now.
	resumed bool

	// held: this follower has held its redelivered batch (one-shot).
	held bool

	batches int   // non-empty batches seen
	txnSeq  int64 // transactions begun

	// historyErr is the first failed history write: it stops the worker.
	historyErr error
}

// RunWorker runs a worker until ctx is cancelled (graceful stop: an open
// transaction is aborted and the last batch released), or it crashes itself at
// its armed point.
func RunWorker(ctx context.Context, cfg WorkerConfig, deps Deps) (err error) {
	w, err := NewWorker(ctx, cfg, deps)
	if err != nil {
		return err
	}
	defer func() { w.Close(err) }()
	for ctx.Err() == nil {
		if _, err := w.Step(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	return nil
}

// NewWorker opens a worker's clients and history. The caller drives it with
// Step (a benchmark paces Step on its own schedule) and must Close it.
func NewWorker(ctx context.Context, cfg WorkerConfig, deps Deps) (*Worker, error) {
	if deps.CheckConfig != nil {
		if err := deps.CheckConfig(&cfg); err != nil {
			return nil, err
		}
	}
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rec, err := history.Create(cfg.HistoryPath, cfg.Name())
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, rec: rec, deps: deps, breaker: newLinkBreaker()}
	attrs := map[string]string{"mode": string(cfg.Mode), "consumer": cfg.Consumer, "pid": strconv.Itoa(os.Getpid()), "transactional_id": cfg.TransactionalID,
		history.AttrTxnTimeout: cfg.TxnTimeout.D().String()}
	if cfg.Mode == Transactional && cfg.Realization == RealizationNative {
		attrs[history.AttrMemberTags] = cfg.memberTags()
	}
	w.event(history.Event{Type: history.Info, F: history.FStart, Realization: cfg.Realization, Attrs: attrs})
	if err := w.open(ctx); err != nil {
		w.Close(err)
		return nil, err
	}
	return w, nil
}

// StepResult is what one Step did, for benchmarks that measure in process.
type StepResult struct {
	// Records is the size of the batch processed; 0 when the poll was empty.
	Records int
	// Outcome of the commit: ok, fail or info; "" when no transaction ran
	// or it was aborted before the commit.
	Outcome history.Type
	// Commit is the commit call, Total begin to commit returned, Ack the
	// non-transactional ack round trip after the commit (explicit and
	// transactional-ledger), TxnAcks the acks' send into the transaction.
	Commit, Total, Ack, TxnAcks time.Duration
	// AcksPrepare, AddShareAcksToTxn and TxnShareAcknowledge split TxnAcks
	// by request where the realization says (native: AckTimingReporter);
	// zero otherwise.
	AcksPrepare, AddShareAcksToTxn, TxnShareAcknowledge time.Duration
}

// Step polls once and, when the poll brought records, processes them in one
// transaction and acknowledges them as the mode says.
func (w *Worker) Step(ctx context.Context) (StepResult, error) {
	w.last = StepResult{}
	if w.historyErr != nil {
		return w.last, w.historyErr
	}
	err := w.step(ctx)
	if w.historyErr != nil {
		err = w.historyErr
	}
	return w.last, err
}

// Close closes the worker's clients and writes its stop event; err is why it
// stopped (nil for a clean stop).
func (w *Worker) Close(err error) {
	w.close()
	e := history.Event{Type: history.Info, F: history.FStop}
	if err != nil {
		e.Error = err.Error()
	}
	w.event(e)
	_ = w.rec.Close()
}

func (w *Worker) open(ctx context.Context) error {
	var err error
	switch w.cfg.Consumer {
	case ConsumerSharechaos:
		if w.deps.OpenSharechaos == nil {
			return errors.New("open worker: consumer sharechaos but no way to open it")
		}
		w.src, err = w.deps.OpenSharechaos(ctx, w.cfg)
	default:
		w.src, err = newKgoSource(w.cfg)
	}
	if err != nil {
		return err
	}
	if err := w.openProducer(ctx); err != nil {
		return err
	}
	if w.cfg.Mode == Transactional {
		if w.deps.NewTxnAcker == nil {
			return errors.New("open worker: transactional mode needs a TxnAcker")
		}
		acker, err := w.deps.NewTxnAcker(ctx, w.cfg, w.src.Client())
		if err != nil {
			return fmt.Errorf("open txn acker: %w", err)
		}
		w.acker = acker
	}
	return nil
}

// openProducer creates the transactional producer and registers its
// transactional.id at once: kgo sends InitProducerId only on first use, and
// registering now fences a crashed predecessor with the same id and aborts its
// open transaction immediately, instead of leaving it to the transaction
// timeout (ARCHITECTURE.md, ledger step 6).
func (w *Worker) openProducer(ctx context.Context) error {
	opts, err := w.cfg.ProducerOptsDialing(w.breaker.DialContext)
	if err != nil {
		return fmt.Errorf("create producer: %w", err)
	}
	if w.deps.ProducerOpts != nil {
		opts = append(opts, w.deps.ProducerOpts(w.cfg)...)
	}
	producer, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("create producer: %w", err)
	}
	w.producer = producer
	ictx, cancel := context.WithTimeout(ctx, w.cfg.RequestTimeout.D())
	defer cancel()
	id, epoch, err := producer.ProducerID(ictx)
	if err != nil {
		return fmt.Errorf("init producer id: %w", err)
	}
	w.event(history.Event{Type: history.OK, F: history.FInitProducer, Attrs: map[string]string{
		"producer_id": strconv.FormatInt(id, 10), "epoch": strconv.Itoa(int(epoch))}})
	return nil
}

// replaceProducer throws the producer away after a commit error: after
// PRODUCER_FENCED or INVALID_TXN_STATE a kgo client is unusable, and after an
// unknown outcome a fresh InitProducerId is the one way to be sure no
// transaction of ours is still open.
func (w *Worker) replaceProducer(ctx context.Context) error {
	w.producer.Close()
	w.producer = nil
	return w.openProducer(ctx)
}

func (w *Worker) close() {
	if w.acker != nil {
		w.acker.Close()
	}
	if w.producer != nil {
		w.producer.Close()
	}
	if w.src != nil {
		w.src.Close()
	}
}

// event appends e. A history that cannot be written makes the run worthless,
// so the first write error is kept and ends the worker at its next Step
// (historyErr) rather than letting it go on unrecorded. The worker returns the
// error instead of exiting: bench workers run inside the orchestrator.
func (w *Worker) event(e history.Event) {
	if err := w.rec.Record(e); err != nil && w.historyErr == nil {
		w.historyErr = fmt.Errorf("write history of worker %s: %w", w.cfg.Name(), err)
	}
}

// fire records that the armed fault fired and performs its action on the
// batch the worker holds. Kill never returns; stop returns once the process
// is continued; term returns once the stop it sent took effect (ctx
// cancelled); stall returns after Arm.Stall (or when ctx ends), renewing
// the batch's locks meanwhile when the worker renews (renew.go).
func (w *Worker) fire(ctx context.Context, p Point, batch []*kgo.Record) {
	w.event(history.Event{Type: history.Info, F: history.FFaultFired, Fault: w.cfg.Arm.Fault,
		Point: string(p), Txn: w.txnSeq, Attrs: map[string]string{"action": string(w.cfg.Arm.Action), "batch": strconv.Itoa(w.batches)}})
	switch w.cfg.Arm.Action {
	case ActionKill:
		// The event above is in the kernel already (one write(2), no buffer).
		signalSelf(syscall.SIGKILL)
		select {} // never reached: nothing of the loop may run after the point
	case ActionTerm:
		// A graceful stop mid-transaction: the signal goes through the
		// worker role's handler (signal.NotifyContext), which cancels ctx,
		// exactly as the orchestrator's SIGTERM does. The handler runs on
		// another goroutine, so wait for it here: the loop's next stop
		// check (abortIfStopping) must see the stop, not race it.
		signalSelf(syscall.SIGTERM)
		select {
		case <-ctx.Done():
		case <-time.After(w.cfg.RequestTimeout.D()):
			w.event(history.Event{Type: history.Info, F: history.FFaultError, Fault: w.cfg.Arm.Fault,
				Error: "SIGTERM did not stop the worker (no signal handler cancels its context)"})
		}
	case ActionStop:
		// Freeze here, mid-transaction, connections up; the orchestrator
		// sends SIGCONT once the replacement has fenced us.
		signalSelf(syscall.SIGSTOP)
		w.resumed = true
		w.event(history.Event{Type: history.Info, F: history.FResumed, Fault: w.cfg.Arm.Fault, Txn: w.txnSeq})
	case ActionStall, ActionStallOverlap, ActionHoldRedelivered:
		// Hold whatever the point holds (the batch's acquisitions, an open
		// transaction), connections up, then go on with the loop: at
		// before-commit the held transaction outlives the lock; at
		// before-begin the batch does, and the transaction that follows
		// can still commit while another worker holds the records.
		w.stall(ctx, batch)
	}
}

// signalSelf sends sig to the calling thread, so that it acts before this
// goroutine's next instruction. kill(2) directs a signal at the process, and
// the kernel may let another thread take it later, the loop going on
// meanwhile (the checker's fault-points part would see it: UNKNOWN). With
// the goroutine locked to its thread, tgkill(2) makes the caller itself take
// the signal on its return to user space; SIGKILL and SIGSTOP still act on
// the whole process. Until SIGKILL lands the thread blocks: nothing after the
// point runs.
func signalSelf(sig syscall.Signal) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig); err != nil {
		// Cannot happen for our own thread; the process-directed form is the
		// fallback rather than going on unfaulted.
		_ = syscall.Kill(os.Getpid(), sig)
	}
	if sig == syscall.SIGKILL {
		select {}
	}
}

func (w *Worker) armedAt(p Point) bool { return w.cfg.Arm.At(p, w.batches) }

// holdsRedelivered reports whether this follower (Arm.Follower) holds batch
// now: the first batch carrying a record whose delivery count is above 1.
func (w *Worker) holdsRedelivered(batch []*kgo.Record) bool {
	if w.held || !w.cfg.Arm.HoldsRedelivered() {
		return false
	}
	for _, r := range batch {
		if deliveryCount(r) > 1 {
			w.held = true
			return true
		}
	}
	return false
}

func recs(rs []*kgo.Record) []history.Rec {
	out := make([]history.Rec, len(rs))
	for i, r := range rs {
		out[i] = history.Rec{ID: string(r.Key), Partition: r.Partition, Offset: r.Offset, Delivery: deliveryCount(r)}
	}
	return out
}

func ids(rs []*kgo.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r.Key)
	}
	return out
}

func since(t time.Time) int64 { return time.Since(t).Nanoseconds() }

// produceAll produces one output per input record into the open transaction
// and waits for every result: kgo commits even when a produce failed, so the
// loop must see each error itself (ENVIRONMENT.md).
func (w *Worker) produceAll(ctx context.Context, batch []*kgo.Record) error {
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	txn := strconv.FormatInt(w.txnSeq, 10)
	for i, r := range batch {
		if i == 0 && mutated(MutantDropOutput) {
			continue
		}
		out := &kgo.Record{
			Key:   r.Key,
			Value: []byte(Transform(string(r.Value))),
			Headers: []kgo.RecordHeader{
				{Key: HeaderSrc, Value: []byte(Src(r.Topic, r.Partition, r.Offset))},
				{Key: HeaderWorker, Value: []byte(w.cfg.Name())},
				{Key: HeaderTxn, Value: []byte(txn)},
			},
		}
		if i == 0 && mutated(MutantOutputOutsideTxn) {
			if err := w.produceOutsideTxn(ctx, out); err != nil {
				return err
			}
			continue
		}
		outs := []*kgo.Record{out}
		if i == 0 && mutated(MutantProduceTwice) {
			twin := *out
			outs = append(outs, &twin)
		}
		for _, out := range outs {
			wg.Add(1)
			w.producer.Produce(ctx, out, func(_ *kgo.Record, err error) {
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
	}
	if mutated(MutantCommitUnchecked) {
		return errors.New("produce: results not checked (mutant commit-unchecked)")
	}
	// kgo's RecordDeliveryTimeout does not always fire when the leader's
	// link is down (seen with dials failing: the produce hung for minutes), so
	// the loop bounds the wait itself; the abort that follows fails whatever
	// is still buffered.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(w.cfg.DeliveryTimeout.D() + time.Second):
		return fmt.Errorf("produce: outputs not acknowledged within %s", w.cfg.DeliveryTimeout.D()+time.Second)
	}
	mu.Lock()
	defer mu.Unlock()
	return firstErr
}
