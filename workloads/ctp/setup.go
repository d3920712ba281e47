package ctp

import (
	"context"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Topology is one cell's private names: its topics, share group and
// transactional ids, so cells never see each other's records.
type Topology struct {
	Prefix      string // e.g. "sc-1a2b-c03"
	InputTopic  string
	OutputTopic string
	LedgerTopic string
	// DLQTopic is the group's dead-letter topic, created only for a row
	// that has one (dlq.: Kafka 4.4's required prefix by default).
	DLQTopic   string
	Group      string
	Partitions int32
	// Replication and MinISR for the suite's own topics (RF 3 / min ISR 2 on
	// three brokers, like the internal topics, or a broker kill makes them
	// unavailable).
	Replication int16
	MinISR      int
}

// NewTopology names a cell's topics and group from a prefix.
func NewTopology(prefix string, partitions int32, replication int16, minISR int) Topology {
	return Topology{
		Prefix: prefix, InputTopic: prefix + "-in", OutputTopic: prefix + "-out", LedgerTopic: prefix + "-ledger", DLQTopic: "dlq." + prefix,
		Group: prefix + "-group", Partitions: partitions, Replication: replication, MinISR: minISR,
	}
}

// TransactionalID is the id of a worker slot: a replacement reuses it, so its
// InitProducerId fences the crashed predecessor and aborts its transaction.
func (t Topology) TransactionalID(slot int) string { return t.Prefix + "-w" + strconv.Itoa(slot) }

// GroupConfig is what the share group needs before anyone consumes.
type GroupConfig struct {
	// Lock is share.record.lock.duration.ms (honoured by Kafka within the
	// brokers' min/max; kfake takes it from broker config only).
	Lock time.Duration
	// DeliveryLimit is share.delivery.count.limit.
	DeliveryLimit int32
}

// Setup creates the cell's topics and sets the share group's configs:
// share.auto.offset.reset=earliest (the default, latest, would skip the seeded
// input) and share.isolation.level=read_committed (the client's own isolation
// setting is ignored for share groups).
func Setup(ctx context.Context, cl *kgo.Client, t Topology, g GroupConfig) error {
	if err := CreateTopics(ctx, cl, t); err != nil {
		return err
	}
	return SetGroupConfigs(ctx, cl, t.Group, g)
}

// CreateTopics creates the cell's topics and waits until every partition has
// a leader. Setup without the group: a runner that still picks the group's
// name (a shared fault's alignment) sets its configs after.
func CreateTopics(ctx context.Context, cl *kgo.Client, t Topology) error {
	adm := kadm.NewClient(cl)
	cfg := map[string]*string{"min.insync.replicas": kadm.StringPtr(strconv.Itoa(t.MinISR))}
	for _, spec := range []struct {
		topic      string
		partitions int32
	}{{t.InputTopic, t.Partitions}, {t.OutputTopic, t.Partitions}, {t.LedgerTopic, 1}} {
		resp, err := adm.CreateTopic(ctx, spec.partitions, t.Replication, cfg, spec.topic)
		if err == nil {
			err = resp.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("create topic %s: %w", spec.topic, err)
		}
	}
	return waitTopicsReady(ctx, adm, t)
}

// SetGroupConfigs sets the share group's configs with IncrementalAlterConfigs
// on the GROUP resource.
func SetGroupConfigs(ctx context.Context, cl *kgo.Client, group string, g GroupConfig) error {
	configs := map[string]string{
		"share.auto.offset.reset": "earliest",
		"share.isolation.level":   "read_committed",
	}
	if g.Lock > 0 {
		configs["share.record.lock.duration.ms"] = strconv.FormatInt(g.Lock.Milliseconds(), 10)
	}
	if g.DeliveryLimit > 0 {
		configs["share.delivery.count.limit"] = strconv.Itoa(int(g.DeliveryLimit))
	}
	err := cluster.SetGroupConfigs(ctx, cl, group, configs)
	// A broker that does not know a config (an older Kafka without
	// share.delivery.count.limit at group level) should not stop the run;
	// anything else does.
	if errors.Is(err, kerr.InvalidConfig) && g.DeliveryLimit > 0 {
		g.DeliveryLimit = 0
		return SetGroupConfigs(ctx, cl, group, g)
	}
	return err
}

// waitTopicsReady waits until every partition of the cell's topics has a leader.
func waitTopicsReady(ctx context.Context, adm *kadm.Client, t Topology) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		md, err := adm.Metadata(ctx, t.InputTopic, t.OutputTopic, t.LedgerTopic)
		ready := err == nil
		if ready {
			for _, td := range md.Topics {
				if td.Err != nil {
					ready = false
				}
				for _, p := range td.Partitions {
					if p.Err != nil || p.Leader < 0 {
						ready = false
					}
				}
			}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("wait for topics of %s: not ready after 30s (last error: %v)", t.Prefix, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// InputRecord is the i-th input record a seeder writes (Seed all at once,
// a soak's seeder at its rate).
func InputRecord(i int) *kgo.Record {
	id := InputID(i)
	return &kgo.Record{Key: []byte(id), Value: []byte(Payload(id))}
}

// nudgeBase numbers the inputs a drain adds (NudgeRecord) far above any
// seeded index, so they never collide with a seeder's records and still
// are r-%06d ids the checkers take like any other input.
const nudgeBase = 4_000_000_000

// NudgeRecord is the k-th extra input record a drain writes to partition
// (suites: drain_stall.go): an ordinary input, processed and checked like
// every other, on a partition of its own choosing.
func NudgeRecord(partition int32, k int) *kgo.Record {
	r := InputRecord(nudgeBase + int(partition)*1000 + k)
	r.Partition = partition
	return r
}

// Nudge writes NudgeRecord(partition, k) to topic and waits for the
// brokers' acknowledgement.
func Nudge(ctx context.Context, bootstrap []string, topic string, partition int32, k int, extra ...kgo.Opt) error {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ClientID("sharechaos-seeder")}, extra...)...)
	if err != nil {
		return fmt.Errorf("nudge partition %d: %w", partition, err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, NudgeRecord(partition, k)).FirstErr(); err != nil {
		return fmt.Errorf("nudge partition %d: %w", partition, err)
	}
	return nil
}

// SeederClient is the client input records are written with: to topic,
// round-robin over its partitions.
func SeederClient(bootstrap []string, topic string, extra ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()), kgo.ClientID("sharechaos-seeder")}, extra...)...)
}

// Seed writes n input records with unique ids (r-000000 ...) in one
// transaction-free batch per partition, spread round-robin, and returns once
// all are acknowledged by the brokers.
func Seed(ctx context.Context, bootstrap []string, topic string, n int, extra ...kgo.Opt) error {
	return SeedRange(ctx, bootstrap, topic, 0, n, extra...)
}

// SeedRange is Seed of the input records from, from+1, ..., from+n-1: a cell
// that holds back part of its input writes it in two ranges.
func SeedRange(ctx context.Context, bootstrap []string, topic string, from, n int, extra ...kgo.Opt) error {
	cl, err := SeederClient(bootstrap, topic, extra...)
	if err != nil {
		return fmt.Errorf("seed input: %w", err)
	}
	defer cl.Close()
	rs := make([]*kgo.Record, n)
	for i := range rs {
		rs[i] = InputRecord(from + i)
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		return fmt.Errorf("seed input: %w", err)
	}
	return nil
}
