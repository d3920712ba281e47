package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289/internal/logread"
)

// Config configures the ledger realization of one worker.
type Config struct {
	// Topic and Partition name the ledger partition of the worker's share
	// group. The worker's producer writes the entry; with a ledger topic of
	// more than one partition, that producer must honour Record.Partition
	// (kgo.RecordPartitioner(kgo.ManualPartitioner())), and AddAcks fails
	// if the entry lands elsewhere.
	Topic     string
	Partition int32
	// Group is the share group: entries for records below a share-partition's
	// start offset are forgotten. "" keeps every entry.
	Group string

	// Seeds and ClientOpts (e.g. kgo.Dialer) build the client that reads the
	// ledger; NewClient, if set, builds it instead of kgo.NewClient.
	Seeds      []string
	ClientOpts []kgo.Opt
	NewClient  func(opts ...kgo.Opt) (*kgo.Client, error)

	// Consumer is the loop's share consumer: PreCheck flushes lock renewals
	// through it (Validate uses Txn.Consumer). Without it renewals go out
	// with kgo's background ack flush.
	Consumer *kgo.Client

	// FetchWait bounds one ledger fetch's wait for new committed data
	// (default 250ms).
	FetchWait time.Duration
	// RenewInterval is how often a waiting reader renews its batch's locks;
	// 0 means half the time the batch's earliest lock had left when the
	// wait began (at least 100ms); negative never renews.
	RenewInterval time.Duration
	// WaitTimeout bounds PreCheck's wait behind open transactions (default
	// two minutes; the loop releases the batch when it ends).
	WaitTimeout time.Duration
	// PruneInterval is how often the share-partition start offsets are
	// asked for (default 5s; negative never).
	PruneInterval time.Duration
}

func (c *Config) defaults() error {
	if c.Topic == "" {
		return errors.New("ledger topic is empty")
	}
	if c.NewClient == nil && len(c.Seeds) == 0 {
		return errors.New("ledger: no seeds and no client factory")
	}
	if c.NewClient == nil {
		seeds, opts := c.Seeds, c.ClientOpts
		c.NewClient = func(more ...kgo.Opt) (*kgo.Client, error) {
			return kgo.NewClient(append(append([]kgo.Opt{kgo.SeedBrokers(seeds...)}, opts...), more...)...)
		}
	}
	if c.FetchWait <= 0 {
		c.FetchWait = 250 * time.Millisecond
	}
	if c.WaitTimeout <= 0 {
		c.WaitTimeout = 2 * time.Minute
	}
	if c.PruneInterval == 0 {
		c.PruneInterval = 5 * time.Second
	}
	return nil
}

// Stats is what the acker has done so far, for reports and tests.
type Stats struct {
	Position int64 // ledger offset read up to
	Records  int   // records the book remembers
	Renews   int   // lock renewals while waiting
	Pruned   int   // records forgotten below share-partition start offsets
	PruneErr error // last failure to read start offsets (memory only, not safety)
}

// Acker is the ledger realization of ctp.TxnAcker for one worker. The loop
// calls it from one goroutine; Stats may be called from any.
type Acker struct {
	cfg Config
	cl  *kgo.Client
	adm *kadm.Client
	log *logread.Partition

	mu        sync.Mutex // guards book, stats (Stats reads them concurrently)
	book      *Book
	stats     Stats
	lastPrune time.Time

	own map[string]int64 // this worker's open transaction -> its entry's offset
}

var _ ctp.TxnAcker = (*Acker)(nil)

// New builds the acker and positions its reader at the ledger's start: the
// book is built from every committed entry (minus pruned ones).
func New(ctx context.Context, cfg Config) (*Acker, error) {
	if err := cfg.defaults(); err != nil {
		return nil, fmt.Errorf("new ledger acker: %w", err)
	}
	cl, err := cfg.NewClient()
	if err != nil {
		return nil, fmt.Errorf("new ledger acker: client: %w", err)
	}
	start, err := logread.StartOffset(ctx, cl, cfg.Topic, cfg.Partition)
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("new ledger acker: %w", err)
	}
	return &Acker{
		cfg:  cfg,
		cl:   cl,
		adm:  kadm.NewClient(cl),
		log:  logread.New(cl, cfg.Topic, cfg.Partition, start, cfg.FetchWait),
		book: NewBook(),
		own:  make(map[string]int64),
	}, nil
}

func (*Acker) Realization() string { return ctp.RealizationLedger }

// LeavesAcksToTxn: no; the ledger decides who wins, and the loop ACCEPTs
// after the commit (RELEASEs after an abort).
func (*Acker) LeavesAcksToTxn() bool { return false }

// PreCheck reads the ledger up to a fresh high watermark, waiting for every
// transaction open below it (renewing the batch's locks meanwhile), and
// returns the records whose acks a committed transaction already holds.
// It stops on position, not on seeing offset H-1: that may be a commit marker
// a read_committed reader never sees.
func (a *Acker) PreCheck(ctx context.Context, batch []*kgo.Record) ([]*kgo.Record, error) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.WaitTimeout)
	defer cancel()
	high, err := logread.EndOffset(ctx, a.cl, a.cfg.Topic, a.cfg.Partition)
	if err != nil {
		return nil, fmt.Errorf("ledger pre-check: %w", err)
	}
	if err := a.readTo(ctx, high, a.renewer(batch, a.cfg.Consumer)); err != nil {
		return nil, fmt.Errorf("ledger pre-check: %w", err)
	}
	a.mu.Lock()
	done := pick(batch, a.book.Committed(ids(batch)))
	a.mu.Unlock()
	a.maybePrune(ctx)
	return done, nil
}

// AddAcks writes the transaction's one ledger entry through its producer and
// checks the produce result: kgo commits even when a produce failed.
func (a *Acker) AddAcks(ctx context.Context, txn ctp.Txn, batch []*kgo.Record) error {
	e := Entry{Worker: txn.Worker, Seq: txn.Seq, Records: ids(batch)}
	r, err := txn.Producer.ProduceSync(ctx, e.Record(a.cfg.Topic, a.cfg.Partition)).First()
	if err != nil {
		return fmt.Errorf("produce ledger entry %s: %w", e.Key(), err)
	}
	if r.Partition != a.cfg.Partition {
		return fmt.Errorf("produce ledger entry %s: landed in partition %d, not %d (the producer does not partition manually)",
			e.Key(), r.Partition, a.cfg.Partition)
	}
	clear(a.own) // one open transaction per worker
	a.own[e.Key()] = r.Offset
	return nil
}

// Validate reads the ledger up to this transaction's own entry, which waits
// for the outcome of every earlier writer, and returns the batch records a
// committed entry below ours already holds: the loop must abort.
func (a *Acker) Validate(ctx context.Context, txn ctp.Txn, batch []*kgo.Record) ([]*kgo.Record, error) {
	key := Entry{Worker: txn.Worker, Seq: txn.Seq}.Key()
	own, ok := a.own[key]
	if !ok {
		return nil, fmt.Errorf("ledger validate: no ledger entry for %s (AddAcks comes first)", key)
	}
	delete(a.own, key)
	if err := a.readTo(ctx, own, a.renewer(batch, txn.Consumer)); err != nil {
		return nil, fmt.Errorf("ledger validate %s: %w", key, err)
	}
	if pos := a.log.Position(); pos > own {
		// Only our transaction ending lets a read_committed read pass our
		// own entry: it was aborted (e.g. timed out) under us. Seen only when
		// a fetch happens to span past the entry; the commit would fail
		// anyway, this just says why sooner.
		return nil, fmt.Errorf("ledger validate %s: read passed our own entry at %d (now %d): our transaction is no longer open", key, own, pos)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return pick(batch, a.book.Conflicts(ids(batch), own)), nil
}

// Close closes the acker's own client.
func (a *Acker) Close() { a.cl.Close() }

// Stats reports what the acker has done so far.
func (a *Acker) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.stats
	s.Records = a.book.Len()
	return s
}

// readTo applies every committed entry below target to the book.
func (a *Acker) readTo(ctx context.Context, target int64, idle func()) error {
	err := a.log.ReadTo(ctx, target, func(r *kgo.Record) error {
		e, err := DecodeEntry(r)
		if err != nil {
			return err
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.book.Apply(r.Offset, e)
	}, idle)
	a.mu.Lock()
	a.stats.Position = a.log.Position()
	a.mu.Unlock()
	return err
}

// renewer returns the idle function of a read: it renews the batch's
// acquisition locks every interval while the read waits behind an open
// transaction, so that waiting does not hand the records to another worker
// and burn their delivery counts (ARCHITECTURE.md, ledger step 6).
func (a *Acker) renewer(batch []*kgo.Record, consumer *kgo.Client) func() {
	interval := a.cfg.RenewInterval
	if interval == 0 {
		var earliest time.Time
		for _, r := range batch {
			if d := r.AcquisitionDeadline(); !d.IsZero() && (earliest.IsZero() || d.Before(earliest)) {
				earliest = d
			}
		}
		if earliest.IsZero() {
			return nil // not share-group records: nothing to renew
		}
		interval = max(100*time.Millisecond, time.Until(earliest)/2)
	}
	if interval < 0 {
		return nil
	}
	last := time.Now()
	return func() {
		if time.Since(last) < interval {
			return
		}
		last = time.Now()
		// kgo renews a record only if it is not marked; a renew sent resets it.
		for _, r := range batch {
			r.Ack(kgo.AckRenew)
		}
		if consumer != nil {
			ctx, cancel := context.WithTimeout(context.Background(), interval)
			_ = consumer.FlushAcks(ctx) // a renew that fails only costs a redelivery; the ledger still decides
			cancel()
		}
		a.mu.Lock()
		a.stats.Renews++
		a.mu.Unlock()
	}
}

// maybePrune forgets records below their share-partition start offsets, at
// most once per PruneInterval.
func (a *Acker) maybePrune(ctx context.Context) {
	if a.cfg.Group == "" || a.cfg.PruneInterval < 0 || time.Since(a.lastPrune) < a.cfg.PruneInterval {
		return
	}
	a.lastPrune = time.Now()
	described, err := a.adm.DescribeShareGroupOffsets(ctx, a.cfg.Group)
	if err == nil {
		err = described.Error()
	}
	starts := make(map[string]map[int32]int64)
	if err == nil {
		for topic, ps := range described[a.cfg.Group].Offsets {
			for p, o := range ps {
				if o.Err == nil && o.StartOffset >= 0 {
					if starts[topic] == nil {
						starts[topic] = make(map[int32]int64)
					}
					starts[topic][p] = o.StartOffset
				}
			}
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		a.stats.PruneErr = fmt.Errorf("describe share group offsets: %w", err)
		return
	}
	a.stats.Pruned += a.book.Prune(starts)
}

func ids(batch []*kgo.Record) []RecordID {
	out := make([]RecordID, len(batch))
	for i, r := range batch {
		out[i] = IDOf(r)
	}
	return out
}

// pick returns the records of batch whose ids are in want.
func pick(batch []*kgo.Record, want []RecordID) []*kgo.Record {
	if len(want) == 0 {
		return nil
	}
	set := make(map[RecordID]bool, len(want))
	for _, id := range want {
		set[id] = true
	}
	var out []*kgo.Record
	for _, r := range batch {
		if set[IDOf(r)] {
			out = append(out, r)
		}
	}
	return out
}
