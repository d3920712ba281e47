package ctp

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
)

// The worker's two clients are built from these options, and so is the
// bench's bare franz-go loop: the bench's harness overhead is the ratio of the
// two loops, and it measures the harness only when both talk to the brokers
// with the same settings (linger, batching, fetch sizes, timeouts, retries).
// A setting added here reaches both; the worker adds only what the bare loop
// has no counterpart for (its ack callback, its breakable dialer).

// ConsumerOpts are the share consumer's options for c, its TLS and SASL
// settings (c.Client) included.
func (c WorkerConfig) ConsumerOpts() ([]kgo.Opt, error) {
	c.defaults()
	secure, err := c.Client.Opts()
	if err != nil {
		return nil, err
	}
	return append([]kgo.Opt{
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
		kgo.MetadataMinAge(metadataMinAge),
	}, secure...), nil
}

// ProducerOpts are the transactional producer's options for c, its TLS and
// SASL settings (c.Client) included.
func (c WorkerConfig) ProducerOpts() ([]kgo.Opt, error) {
	secure, err := c.Client.Opts()
	if err != nil {
		return nil, err
	}
	return c.producerOpts(secure), nil
}

// ProducerOptsDialing are ProducerOpts with every connection dialed through
// dial (the worker's breakable dialer), TLS done on top of it.
func (c WorkerConfig) ProducerOptsDialing(dial clientcfg.DialFunc) ([]kgo.Opt, error) {
	secure, err := c.Client.OptsDialing(dial)
	if err != nil {
		return nil, err
	}
	return c.producerOpts(secure), nil
}

func (c WorkerConfig) producerOpts(secure []kgo.Opt) []kgo.Opt {
	c.defaults()
	return append([]kgo.Opt{
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
		kgo.MetadataMinAge(metadataMinAge),
	}, secure...)
}

// metadataMinAge is how soon kgo may refresh metadata again. kgo retries a
// produce batch that got a retriable error only after a metadata refresh,
// and its default minimum age between refreshes is 5 s: on Kafka 4.2.2 about
// one transaction in ten waited 3.5-10 s between send invoke and send ok for
// exactly that (docs/FINDINGS.md, "the 5-second tail"). A short minimum age
// makes the retry follow the error by a quarter second.
const metadataMinAge = 250 * time.Millisecond
