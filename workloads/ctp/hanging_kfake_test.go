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
	defer func(was time.Duration) { readStall = was }(readStall)
	readStall = 2 * time.Second
	const topic = "out"
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, topic))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	plain, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.ProduceSync(ctx, &kgo.Record{Partition: 1, Value: []byte("committed")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	open, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.TransactionalID("hangs"), kgo.TransactionTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if err := open.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := open.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte("never ended")}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	out, err := ReadOutputs(ctx, c.ListenAddrs(), topic)
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
