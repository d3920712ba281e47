package ctp

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The worker's two clients are built from these options, and so is the
// bench's bare franz-go loop: the bench's harness overhead is the ratio of the
// two loops, and it measures the harness only when both talk to the brokers
// with the same settings (linger, batching, fetch sizes, timeouts, retries).
// A setting added here reaches both; the worker adds only what the bare loop
// has no counterpart for (its ack callback, its breakable dialer).

// ConsumerOpts are the share consumer's options for c.
func (c WorkerConfig) ConsumerOpts() []kgo.Opt {
	c.defaults()
	return []kgo.Opt{
		kgo.SeedBrokers(c.Bootstrap...),
		kgo.ClientID("sharechaos-" + c.Name()),
		kgo.ShareGroup(c.Group),
		kgo.ConsumeTopics(c.InputTopic),
		kgo.ShareMaxRecords(c.MaxRecords),
		kgo.ShareMaxRecordsStrict(),
		// One fetch per poll goes to one broker at a time; a broker with
		// nothing left long-polls for the whole wait while another's
		// partitions have records, so keep the wait short.
		kgo.FetchMaxWait(100 * time.Millisecond),
	}
}

// ProducerOpts are the transactional producer's options for c.
func (c WorkerConfig) ProducerOpts() []kgo.Opt {
	c.defaults()
	return []kgo.Opt{
		kgo.SeedBrokers(c.Bootstrap...),
		kgo.ClientID("sharechaos-" + c.Name() + "-producer"),
		kgo.TransactionalID(c.TransactionalID),
		kgo.TransactionTimeout(c.TxnTimeout.D()),
		kgo.RecordDeliveryTimeout(c.DeliveryTimeout.D()),
		kgo.DefaultProduceTopic(c.OutputTopic),
		// The loop waits for every output before it commits, so lingering
		// only adds kgo's default 10 ms to every transaction (measured by
		// the bench against a ProduceSync loop: 12.6 ms vs 2.1 ms p50).
		kgo.ProducerLinger(0),
	}
}
