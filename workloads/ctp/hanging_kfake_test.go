package ctp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestHangingFromTheFirstOffset: a transaction left open from a partition's
// first offset, where a read_committed fetch brings no record at all, is a
// hanging transaction, not a read-back that failed; a partition that
// committed records beside it still reads them.
func TestHangingFromTheFirstOffset(t *testing.T) {
	c, ctx := readBackCluster(t, 2*time.Second)
	plain := producerTo(t, c)
	if err := plain.ProduceSync(ctx, &kgo.Record{Partition: 1, Value: []byte("committed")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	open := producerTo(t, c, kgo.TransactionalID("hangs"), kgo.TransactionTimeout(time.Minute))
	if err := open.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := open.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte("never ended")}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	out, err := ReadOutputs(ctx, c.ListenAddrs(), readBackTopic)
	var h *HangingError
	if !errors.As(err, &h) {
		t.Fatalf("read-back of a transaction open from offset 0: %v, want a hanging transaction", err)
	}
	if len(h.Partitions) != 1 || h.Partitions[0] != (HangingPartition{Partition: 0, LSO: 0, End: 1, HighWatermark: 1}) {
		t.Errorf("hanging %+v, want partition 0 stable to 0 of 1", h.Partitions)
	}
	if len(out) != 1 || out[0].Partition != 1 {
		t.Errorf("outputs read beside it: %+v, want the committed one of partition 1", out)
	}
}

// readBackTopic is the topic of the read-back tests' clusters.
const readBackTopic = "out"

// readBackCluster is an in-process kfake broker with readBackTopic (two
// partitions), the read-back's stall set to stall for the test, and a
// minute's context.
func readBackCluster(t *testing.T, stall time.Duration) (*kfake.Cluster, context.Context) {
	t.Helper()
	was := readStall
	readStall = stall
	t.Cleanup(func() { readStall = was })
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, readBackTopic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c, ctx
}

// producerTo is a client producing to readBackTopic's partition each record
// names, with opts (a transactional id).
func producerTo(t *testing.T, c *kfake.Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(readBackTopic),
		kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}
