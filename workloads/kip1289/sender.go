package kip1289

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
)

// Sender puts share acknowledgements into a kgo producer's open transaction
// (the KIP's Producer.sendShareAcksToTransaction). It caches what it learns
// once per producer: the brokers' support and topic ids.
//
// A Sender is used from the goroutine that runs the producer's transactions,
// like BeginTransaction and EndTransaction themselves.
type Sender struct {
	producer *kgo.Client
	txnID    string
	t        *transport
	// producesFirst: the caller vouches that every transaction it sends
	// acks into already has records produced and flushed (CallerProducesFirst).
	producesFirst bool
	// prepared is how long the last send took to its first request
	// (SendTimings.Prepare).
	prepared time.Duration
}

// SenderOpt configures a Sender.
type SenderOpt func(*Sender)

// CallerProducesFirst vouches that every transaction the Sender is asked to
// put acks into already has records produced and flushed through the
// producer, as the CTP loop's do (ctp.TxnAcker: AddAcks comes after the
// outputs' produce and flush, and a failed produce aborts before it). The
// Sender then skips its DescribeTransactions check (ErrNothingProduced), a
// round trip per transaction that a KIP-1289 producer, which knows what it
// produced, would not make. Fencing is still reported: AddShareAcksToTxn
// itself refuses a stale epoch.
func CallerProducesFirst() SenderOpt { return func(s *Sender) { s.producesFirst = true } }

// NewSender wraps a transactional producer built with keys.ClientOpt().
func NewSender(producer *kgo.Client, keys APIKeys, opts ...SenderOpt) (*Sender, error) {
	txnID, _ := producer.OptValue(kgo.TransactionalID).(string)
	if txnID == "" {
		return nil, fmt.Errorf("new share ack sender: %w", ErrNotTransactional)
	}
	t, err := newTransport(producer, keys)
	if err != nil {
		return nil, fmt.Errorf("new share ack sender: %w", err)
	}
	s := &Sender{producer: producer, txnID: txnID, t: t}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// SendShareAcksToTransaction puts acks into the producer's open transaction:
// they commit or abort with it. Errors:
//
//   - ErrNoTransaction: no transaction is open (the KIP's
//     IllegalStateException); nothing was sent;
//   - ErrNothingProduced: the transaction has no produced record yet, so kgo
//     would end it without telling the coordinator (see the error); not
//     checked with CallerProducesFirst;
//   - *UnsupportedError: the brokers do not advertise both RPCs; nothing new
//     was sent;
//   - fenced (ctp.Fenced, errors.Is with kerr.ProducerFenced or
//     kerr.InvalidProducerEpoch): a newer producer took over; abort and stop;
//   - PartitionErrors: share-partitions that refused their acks; abort.
//
// It flushes the producer first: the coordinator must have seen the
// transaction's records before the acks can be tied to it.
func (s *Sender) SendShareAcksToTransaction(ctx context.Context, acks ShareAcknowledgements, md ShareGroupMetadata) error {
	if err := md.validate(); err != nil {
		return fmt.Errorf("send share acks to txn: %w", err)
	}
	if len(acks) == 0 {
		return nil
	}
	began := time.Now()
	if err := inTransaction(ctx, s.producer); err != nil {
		return fmt.Errorf("send share acks to txn: %w", err)
	}
	if err := s.t.requireSupport(ctx); err != nil {
		return fmt.Errorf("send share acks to txn: %w", err)
	}
	if err := s.producer.Flush(ctx); err != nil {
		return fmt.Errorf("send share acks to txn: flush: %w", err)
	}
	id, epoch, err := s.producer.ProducerID(ctx)
	if err != nil {
		return fmt.Errorf("send share acks to txn: producer id: %w", err)
	}
	p := producerTxn{TransactionalID: s.txnID, ProducerID: id, Epoch: epoch}
	if !s.producesFirst {
		if err := s.checkOngoing(ctx, p); err != nil {
			return fmt.Errorf("send share acks to txn: %w", err)
		}
	}
	s.prepared = time.Since(began)
	if err := s.t.send(ctx, p, acks, md); err != nil {
		return fmt.Errorf("send share acks to txn: %w", err)
	}
	return nil
}

// LastRequests are the TxnShareAcknowledge requests the last
// SendShareAcksToTransaction sent and had answered, each with its broker and
// share-partitions.
func (s *Sender) LastRequests() []SentRequest { return s.t.lastSent() }

// LastTimings is where the last SendShareAcksToTransaction's time went.
func (s *Sender) LastTimings() SendTimings {
	t := s.t.lastTimings()
	t.Prepare = s.prepared
	return t
}

// SendOpt configures the one-shot SendShareAcksToTransaction.
type SendOpt func(*APIKeys)

// WithAPIKeys sends with keys instead of the placeholders (DefaultAPIKeys).
func WithAPIKeys(keys APIKeys) SendOpt { return func(k *APIKeys) { *k = keys } }

// SendShareAcksToTransaction is the one-shot form of Sender's method (the
// KIP's producer.sendShareAcksToTransaction): it negotiates support and
// resolves topic ids on every call, so a loop wants a Sender. Build the
// producer with APIKeys.ClientOpt().
func SendShareAcksToTransaction(ctx context.Context, producer *kgo.Client, acks ShareAcknowledgements,
	md ShareGroupMetadata, opts ...SendOpt) error {
	keys := DefaultAPIKeys()
	for _, o := range opts {
		o(&keys)
	}
	s, err := NewSender(producer, keys)
	if err != nil {
		return err
	}
	return s.SendShareAcksToTransaction(ctx, acks, md)
}

// inTransaction asks kgo whether a transaction is open. kgo has no accessor
// for it, but BeginTransaction refuses to begin inside one: if it succeeds,
// none was open and we end the one we just began, which, with nothing
// produced, kgo does locally without a request. If it fails, either a
// transaction is open or the producer id is fatally failed, which
// ProducerID then reports (fencing included).
func inTransaction(ctx context.Context, cl *kgo.Client) error {
	if err := cl.BeginTransaction(); err == nil {
		if err := cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
			return fmt.Errorf("%w (and undoing the probe failed: %v)", ErrNoTransaction, err)
		}
		return ErrNoTransaction
	}
	if _, _, err := cl.ProducerID(ctx); err != nil {
		return fmt.Errorf("producer id: %w", err)
	}
	return nil
}

// checkOngoing asks the transaction coordinator whether our transaction is
// open there with something in it besides share acks. It also catches a
// producer fenced since its last request: the coordinator then knows a newer
// epoch.
func (s *Sender) checkOngoing(ctx context.Context, p producerTxn) error {
	req := kmsg.NewPtrDescribeTransactionsRequest()
	req.TransactionalIDs = []string{p.TransactionalID}
	var st *kmsg.DescribeTransactionsResponseTransactionState
	err := retry(ctx, "describe transaction", func() error {
		resp, err := req.RequestWith(ctx, s.producer)
		if err != nil {
			return err
		}
		if len(resp.TransactionStates) != 1 {
			return fmt.Errorf("%d states for one transactional id", len(resp.TransactionStates))
		}
		st = &resp.TransactionStates[0]
		return kerr.ErrorForCode(st.ErrorCode)
	})
	if err != nil {
		return err
	}
	if st.ProducerID != p.ProducerID || st.ProducerEpoch > p.Epoch {
		return fmt.Errorf("coordinator has producer %d epoch %d, we are %d epoch %d: %w",
			st.ProducerID, st.ProducerEpoch, p.ProducerID, p.Epoch, kerr.ProducerFenced)
	}
	if !strings.EqualFold(st.State, "Ongoing") {
		return fmt.Errorf("coordinator state %q: %w", st.State, ErrNothingProduced)
	}
	for _, t := range st.Topics {
		if t.Topic != kafkarole.ShareStateTopic { // where the transaction coordinator enlists share acks
			return nil
		}
	}
	return errors.Join(ErrNothingProduced, errors.New("only share acks are in the transaction"))
}
