package ctp

import (
	"context"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The share consumers a worker can run on (WorkerConfig.Consumer).
const (
	// ConsumerKgo is franz-go's share consumer: it ACCEPTs, on the next poll,
	// whatever of the previous poll was not marked.
	ConsumerKgo = "kgo"
	// ConsumerSharechaos is workloads/shareconsumer: it never acknowledges on
	// its own, so the native realization can leave the acks to the
	// transaction.
	ConsumerSharechaos = "sharechaos"
)

// Consumers lists the consumer choices.
var Consumers = []string{ConsumerKgo, ConsumerSharechaos}

// ShareSource is the loop's share-group consumer. Records are handed out as
// kgo records whichever consumer acquired them, so that the TxnAcker seam and
// the history stay one shape; a consumer other than kgo's puts each record's
// delivery count in its Context (WithDeliveryCount).
type ShareSource interface {
	// Poll acquires at most max records, waiting about a second at most.
	Poll(ctx context.Context, max int) []*kgo.Record
	// Ack sends status for batch and waits for the broker's answer:
	// rejected lists the partitions the broker refused ("topic/partition:
	// error"); err is a failure that leaves the outcome unknown.
	Ack(ctx context.Context, status kgo.AckStatus, batch []*kgo.Record) (rejected []string, err error)
	// Member is the share-group member id and epoch; "" when the consumer
	// does not expose them (kgo).
	Member() (id string, epoch int32)
	// Client is kgo's client of the kgo consumer (the ledger realization
	// renews locks through it); nil for others.
	Client() *kgo.Client
	Close()
}

// OpenShareSource opens a worker's share consumer other than kgo's (the
// worker role's main passes workloads/ctp/scsource.Open: this package does
// not depend on the consumer it drives, whose tests use this package).
type OpenShareSource func(ctx context.Context, cfg WorkerConfig) (ShareSource, error)

// Deps are what a worker is built with beyond its config.
type Deps struct {
	// NewTxnAcker is required in transactional mode.
	NewTxnAcker NewTxnAcker
	// OpenSharechaos opens ConsumerSharechaos; required when a config asks
	// for it.
	OpenSharechaos OpenShareSource
	// ProducerOpts, if set, adds options to the transactional producer (the
	// native realization's producer must allow KIP-1289's API keys).
	ProducerOpts func(cfg WorkerConfig) []kgo.Opt
	// CheckConfig, if set, checks (and completes: an empty consumer) what
	// the config asks of its realization, before WorkerConfig.Validate.
	CheckConfig func(cfg *WorkerConfig) error
}

// deliveryKey keys a record's delivery count in its Context.
type deliveryKey struct{}

// WithDeliveryCount returns ctx carrying a record's delivery count, for a
// ShareSource that is not kgo's (kgo keeps its own in the record's Context).
func WithDeliveryCount(ctx context.Context, n int32) context.Context {
	return context.WithValue(ctx, deliveryKey{}, n)
}

// kgoSource is franz-go's share consumer.
type kgoSource struct {
	cl *kgo.Client

	// ackErrs collects what the broker said of this worker's acks: FlushAcks
	// returns nil even when the broker rejected a partition's acks, and only
	// the ShareAckCallback hears it.
	mu      sync.Mutex
	ackErrs []string
}

func newKgoSource(cfg WorkerConfig) (*kgoSource, error) {
	s := &kgoSource{}
	copts, err := cfg.ConsumerOpts()
	if err != nil {
		return nil, fmt.Errorf("create consumer: %w", err)
	}
	cl, err := kgo.NewClient(append(copts, kgo.ShareAckCallback(s.onAckResults))...)
	if err != nil {
		return nil, fmt.Errorf("create consumer: %w", err)
	}
	s.cl = cl
	return s, nil
}

func (s *kgoSource) Poll(ctx context.Context, max int) []*kgo.Record {
	var batch []*kgo.Record
	s.cl.PollRecords(ctx, max).EachRecord(func(r *kgo.Record) { batch = append(batch, r) })
	return batch
}

func (s *kgoSource) Ack(ctx context.Context, status kgo.AckStatus, batch []*kgo.Record) ([]string, error) {
	s.takeAckErrs() // whatever earlier flushes left belongs to them
	s.cl.MarkAcks(status, batch...)
	if err := s.cl.FlushAcks(ctx); err != nil {
		return nil, err
	}
	return s.takeAckErrs(), nil
}

// onAckResults keeps every per-partition ack error for the ack event that
// flushed it.
func (s *kgoSource) onAckResults(_ *kgo.Client, rs kgo.ShareAckResults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rs {
		if r.Err != nil {
			s.ackErrs = append(s.ackErrs, fmt.Sprintf("%s/%d: %v", r.Topic, r.Partition, r.Err))
		}
	}
}

func (s *kgoSource) takeAckErrs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := s.ackErrs
	s.ackErrs = nil
	return errs
}

func (s *kgoSource) Member() (string, int32) { return "", -1 }
func (s *kgoSource) Client() *kgo.Client     { return s.cl }

// close releases the last poll's unmarked records (they come back at once,
// delivery count raised).
func (s *kgoSource) Close() { s.cl.Close() }

// deliveryCount is the record's delivery count, from whichever consumer
// acquired it.
func deliveryCount(r *kgo.Record) int32 {
	if r.Context != nil {
		if n, ok := r.Context.Value(deliveryKey{}).(int32); ok {
			return n
		}
	}
	return r.DeliveryCount()
}
