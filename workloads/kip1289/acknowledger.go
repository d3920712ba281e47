package kip1289

import (
	"context"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AcknowledgerConfig configures a TransactionalShareAcknowledger.
type AcknowledgerConfig struct {
	// Client carries the requests; it needs no transactional id of its own
	// (the acknowledger keeps its producer id and epoch itself) but must be
	// built with Keys.ClientOpt(). The caller owns and closes it.
	Client          *kgo.Client
	TransactionalID string
	// TransactionTimeout is transaction.timeout.ms; 0 means one minute.
	TransactionTimeout time.Duration
	Keys               APIKeys
}

// TransactionalShareAcknowledger commits share acknowledgements in
// transactions of their own, for pipelines without a Kafka producer (the
// KIP's TransactionalShareAcknowledger): each commit is the ordinary two-phase
// commit, InitProducerId once, then per transaction AddShareAcksToTxn,
// TxnShareAcknowledge, EndTxn.
//
// It speaks to the transaction coordinator itself instead of through a kgo
// transactional producer: kgo's EndTransaction does nothing for a transaction
// with no record produced through kgo, and EndTxn v5 (KIP-890) bumps the
// epoch, which kgo would not learn about.
//
// Methods must not be called concurrently.
type TransactionalShareAcknowledger struct {
	cfg AcknowledgerConfig
	t   *transport

	mu     sync.Mutex
	pid    int64
	epoch  int16
	state  ackerState
	fatal  error // fenced: the acknowledger is dead
	closed bool
}

type ackerState int

const (
	stateUninitialized ackerState = iota
	stateReady                    // no transaction open
	stateInTxn                    // a transaction is open at the coordinator (or may be)
	stateNeedsInit                // the last outcome is unknown: re-init fences it
)

// NewTransactionalShareAcknowledger checks cfg; InitTransactions talks to
// the cluster.
func NewTransactionalShareAcknowledger(cfg AcknowledgerConfig) (*TransactionalShareAcknowledger, error) {
	if cfg.Client == nil || cfg.TransactionalID == "" {
		return nil, errors.New("new transactional share acknowledger: client and transactional id are required")
	}
	if cfg.TransactionTimeout == 0 {
		cfg.TransactionTimeout = time.Minute
	}
	t, err := newTransport(cfg.Client, cfg.Keys)
	if err != nil {
		return nil, fmt.Errorf("new transactional share acknowledger: %w", err)
	}
	return &TransactionalShareAcknowledger{cfg: cfg, t: t, pid: -1, epoch: -1}, nil
}

// InitTransactions checks that the brokers speak KIP-1289 and registers the
// transactional id (InitProducerId), which fences any older acknowledger with
// the same id and aborts its open transaction.
func (a *TransactionalShareAcknowledger) InitTransactions(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.usable(); err != nil {
		return err
	}
	if err := a.t.requireSupport(ctx); err != nil {
		return fmt.Errorf("init transactions: %w", err)
	}
	return a.initLocked(ctx)
}

func (a *TransactionalShareAcknowledger) initLocked(ctx context.Context) error {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = kmsg.StringPtr(a.cfg.TransactionalID)
	req.TransactionTimeoutMillis = int32(a.cfg.TransactionTimeout / time.Millisecond)
	// KIP-360: our current id and epoch let the coordinator bump the epoch of
	// this producer (aborting what it left open) instead of failing.
	req.ProducerID, req.ProducerEpoch = a.pid, a.epoch
	var resp *kmsg.InitProducerIDResponse
	err := retry(ctx, "init producer id", func() error {
		var err error
		resp, err = req.RequestWith(ctx, a.cfg.Client)
		if err != nil {
			return err
		}
		return kerr.ErrorForCode(resp.ErrorCode)
	})
	if err != nil {
		if ctp.Fenced(err) {
			a.fatal = err
		}
		return fmt.Errorf("init transactions: %w", err)
	}
	a.pid, a.epoch, a.state = resp.ProducerID, resp.ProducerEpoch, stateReady
	return nil
}

// CommitAcknowledgements commits acks in a transaction of their own: begin,
// AddShareAcksToTxn, TxnShareAcknowledge, EndTxn(commit). On an error before
// EndTxn the transaction stays open: call AbortAcknowledgements. An EndTxn
// whose answer was lost returns an error wrapping ErrOutcomeUnknown (the
// commit may have happened); the next call re-initializes, which fences and
// aborts that transaction if it is still open.
func (a *TransactionalShareAcknowledger) CommitAcknowledgements(ctx context.Context, acks ShareAcknowledgements, md ShareGroupMetadata) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.usable(); err != nil {
		return err
	}
	if err := md.validate(); err != nil {
		return fmt.Errorf("commit acknowledgements: %w", err)
	}
	if len(acks) == 0 {
		return nil
	}
	switch a.state {
	case stateUninitialized:
		return fmt.Errorf("commit acknowledgements: %w: call InitTransactions first", ErrNoTransaction)
	case stateInTxn:
		return errors.New("commit acknowledgements: a failed transaction is still open: call AbortAcknowledgements")
	case stateNeedsInit:
		if err := a.initLocked(ctx); err != nil {
			return fmt.Errorf("commit acknowledgements: %w", err)
		}
	}
	a.state = stateInTxn // from the first request on, the coordinator may hold an open transaction
	p := producerTxn{TransactionalID: a.cfg.TransactionalID, ProducerID: a.pid, Epoch: a.epoch}
	if err := a.t.send(ctx, p, acks, md); err != nil {
		a.noteFenced(err)
		return fmt.Errorf("commit acknowledgements: %w", err)
	}
	return a.endLocked(ctx, true)
}

// AbortAcknowledgements aborts the transaction a failed CommitAcknowledgements
// left open: its pending acks are discarded and the records go back to their
// share groups when their locks end. With no transaction open it does
// nothing.
func (a *TransactionalShareAcknowledger) AbortAcknowledgements(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.usable(); err != nil {
		return err
	}
	if a.state != stateInTxn {
		return nil
	}
	return a.endLocked(ctx, false)
}

// endLocked sends EndTxn. Only a definite answer counts as an outcome: a
// transport error may hide a commit that happened.
func (a *TransactionalShareAcknowledger) endLocked(ctx context.Context, commit bool) error {
	what := map[bool]string{true: "commit", false: "abort"}[commit]
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID = a.cfg.TransactionalID
	req.ProducerID, req.ProducerEpoch = a.pid, a.epoch
	req.Commit = commit
	var resp *kmsg.EndTxnResponse
	// lost: some attempt's answer never came, so that attempt may have ended
	// the transaction; a later refusal (INVALID_TXN_STATE, or fenced by the
	// epoch the lost attempt bumped) then says nothing about the outcome.
	var lost bool
	err := retry(ctx, "end txn", func() error {
		var err error
		resp, err = req.RequestWith(ctx, a.cfg.Client)
		if err != nil {
			lost = true
			return err
		}
		return kerr.ErrorForCode(resp.ErrorCode)
	})
	switch {
	case err == nil:
		if resp.Version >= 5 && resp.ProducerID >= 0 {
			// KIP-890 part 2: the coordinator bumped the epoch.
			a.pid, a.epoch = resp.ProducerID, resp.ProducerEpoch
		}
		a.state = stateReady
		return nil
	case lost:
		a.state = stateNeedsInit
		return fmt.Errorf("%s acknowledgements: %w: %w", what, ErrOutcomeUnknown, err)
	default:
		a.noteFenced(err)
		if !ctp.Fenced(err) {
			// A refused commit (e.g. INVALID_TXN_STATE) leaves the coordinator
			// in a state only a re-init is sure to clear.
			a.state = stateNeedsInit
		}
		return fmt.Errorf("%s acknowledgements: %w", what, err)
	}
}

// Close forgets the producer identity; an open transaction is left to the
// coordinator's timeout (or to the next acknowledger with the same id, whose
// InitTransactions aborts it at once). The client stays open: it is the
// caller's.
func (a *TransactionalShareAcknowledger) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
}

// ProducerID returns the current producer id and epoch (-1, -1 before
// InitTransactions).
func (a *TransactionalShareAcknowledger) ProducerID() (int64, int16) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pid, a.epoch
}

func (a *TransactionalShareAcknowledger) usable() error {
	switch {
	case a.closed:
		return errors.New("transactional share acknowledger is closed")
	case a.fatal != nil:
		return fmt.Errorf("transactional share acknowledger is fenced: %w", a.fatal)
	}
	return nil
}

func (a *TransactionalShareAcknowledger) noteFenced(err error) {
	if ctp.Fenced(err) {
		a.fatal = err
	}
}
