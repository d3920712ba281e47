package embedded

import (
	"context"
	"github.com/sharechaos/sharechaos/internal/clustertest"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// seedOneRecord creates a one-partition topic holding one record and lets a
// share group read it from the start.
func seedOneRecord(t *testing.T, ctx context.Context, c *Cluster, topic, group string) {
	t.Helper()
	admin := clustertest.Client(t, c.Bootstrap())
	createTopic(t, ctx, admin, topic, 1)
	if err := admin.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: []byte("only")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	if err := setShareGroupConfig(ctx, admin, group, "share.auto.offset.reset", "earliest"); err != nil {
		t.Fatalf("set group config: %v", err)
	}
}

func newShareConsumer(t *testing.T, c *Cluster, group, topic string) *kgo.Client {
	t.Helper()
	return clustertest.Client(t, c.Bootstrap(),
		kgo.ShareGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ShareMaxRecordsStrict(),
		kgo.ShareMaxRecords(1),
	)
}

// pollOne polls until a record comes or ctx ends.
func pollOne(ctx context.Context, cl *kgo.Client) *kgo.Record {
	for ctx.Err() == nil {
		pollCtx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pollCtx)
		cancel()
		if rs := fs.Records(); len(rs) > 0 {
			return rs[0]
		}
	}
	return nil
}

// The broker-level lock duration and sweep interval are honoured: a record
// held by a stalled consumer (connection up, never acknowledged) comes to
// another consumer once the short lock expires, on its second delivery.
func TestRecordLockHonoured(t *testing.T) {
	c := startCluster(t, Options{RecordLock: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic, group = "lock-in", "lock-g"
	seedOneRecord(t, ctx, c, topic, group)

	stalled := newShareConsumer(t, c, group, topic)
	first := pollOne(ctx, stalled)
	if first == nil {
		t.Fatal("first consumer got nothing")
	}
	// stalled never polls again, so it never acknowledges the record.
	other := newShareConsumer(t, c, group, topic)
	wait, cancelWait := context.WithTimeout(ctx, 20*time.Second)
	defer cancelWait()
	again := pollOne(wait, other)
	if again == nil {
		t.Fatal("a record held past its 1s lock never came to another consumer")
	}
	if again.Offset != first.Offset || again.DeliveryCount() != 2 {
		t.Fatalf("got offset %d delivery %d, want offset %d delivery 2", again.Offset, again.DeliveryCount(), first.Offset)
	}
}

// The delivery-count limit is honoured: with a limit of 2, a record released
// twice is archived and not delivered a third time.
func TestDeliveryLimitHonoured(t *testing.T) {
	c := startCluster(t, Options{DeliveryLimit: 2})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic, group = "limit-in", "limit-g"
	seedOneRecord(t, ctx, c, topic, group)

	cl := newShareConsumer(t, c, group, topic)
	for delivery := int32(1); delivery <= 2; delivery++ {
		r := pollOne(ctx, cl)
		if r == nil || r.DeliveryCount() != delivery {
			t.Fatalf("delivery %d: got %v", delivery, r)
		}
		r.Ack(kgo.AckRelease)
		if err := cl.FlushAcks(ctx); err != nil {
			t.Fatalf("flush release: %v", err)
		}
	}
	wait, cancelWait := context.WithTimeout(ctx, 3*time.Second)
	defer cancelWait()
	if r := pollOne(wait, cl); r != nil {
		t.Fatalf("record delivered a third time (count %d) despite a limit of 2", r.DeliveryCount())
	}
}
