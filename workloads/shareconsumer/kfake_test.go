package shareconsumer

import (
	"context"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/clustertest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// consumeAll runs consumers concurrently, each accepting every batch, until
// the ledger has n distinct records, and checks each came exactly once.
func consumeAll(t *testing.T, ctx context.Context, f *fixture, consumers, n int) {
	l := newLedger()
	var wg sync.WaitGroup
	errs := make(chan error, consumers)
	for range consumers {
		c := f.consumer(t, ctx, 10)
		wg.Add(1)
		go func() {
			defer wg.Done()
			deadline := time.Now().Add(60 * time.Second)
			for l.distinct() < n && time.Now().Before(deadline) {
				recs, err := c.Poll(ctx)
				if err != nil {
					errs <- err
					return
				}
				l.add(recs)
				if len(recs) > 0 {
					if _, err := c.Acknowledge(ctx, AckRecords(Accept, recs...)); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := range n {
		got := l.delivered[value(i)]
		if len(got) != 1 {
			t.Errorf("%s delivered %d times, want 1", value(i), len(got))
			continue
		}
		if got[0].DeliveryCount != 1 {
			t.Errorf("%s delivery count %d, want 1", value(i), got[0].DeliveryCount)
		}
	}
	if len(l.delivered) != n {
		t.Errorf("%d distinct records delivered, want %d", len(l.delivered), n)
	}
	f.waitDrained(t, ctx)
}

func TestKfakeExactlyOnceOneConsumer(t *testing.T) {
	ctx := clustertest.Context(t, 2*time.Minute)
	f := newFixture(t, ctx, startKfake(t, 1), 3, 1)
	f.produce(t, ctx, 0, 200)
	consumeAll(t, ctx, f, 1, 200)
}

// Three brokers, so the partitions have different leaders and each consumer
// keeps a share session per broker.
func TestKfakeExactlyOnceThreeConsumers(t *testing.T) {
	ctx := clustertest.Context(t, 2*time.Minute)
	f := newFixture(t, ctx, startKfake(t, 3), 6, 3)
	f.produce(t, ctx, 0, 300)
	consumeAll(t, ctx, f, 3, 300)
}

// Every codec kgo writes decodes.
func TestKfakeCompressedBatches(t *testing.T) {
	ctx := clustertest.Context(t, 2*time.Minute)
	f := newFixture(t, ctx, startKfake(t, 1), 1, 1)
	codecs := []kgo.CompressionCodec{kgo.NoCompression(), kgo.GzipCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression()}
	for i, codec := range codecs {
		f.produce(t, ctx, i*20, 20, kgo.ProducerBatchCompression(codec))
	}
	consumeAll(t, ctx, f, 1, 20*len(codecs))
}

// read_committed: aborted records never come, and the control records of
// both transactions are acknowledged as gaps, so the group drains to the end.
func TestKfakeTransactionalInput(t *testing.T) {
	testTransactionalInput(t, clustertest.Context(t, 2*time.Minute), startKfake(t, 1))
}

func testTransactionalInput(t *testing.T, ctx context.Context, bootstrap []string) {
	f := newFixture(t, ctx, bootstrap, 1, 1)
	p, err := kgo.NewClient(kgo.SeedBrokers(f.bootstrap...), kgo.DefaultProduceTopic(f.topic), kgo.TransactionalID("txn-"+t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	write := func(from, n int, commit kgo.TransactionEndTry) {
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			p.Produce(ctx, &kgo.Record{Value: []byte(value(from + i))}, nil)
		}
		if err := p.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := p.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 10, kgo.TryCommit)
	write(1000, 10, kgo.TryAbort)
	write(10, 10, kgo.TryCommit)

	c := f.consumer(t, ctx, 10)
	l := newLedger()
	pollUntil(t, ctx, c, 30*time.Second, func(recs []*Record) bool {
		l.add(recs)
		accept(t, ctx, c, recs)
		return l.distinct() >= 20
	})
	for v := range l.delivered {
		if v >= value(1000) {
			t.Errorf("aborted record %s delivered", v)
		}
	}
	// The last control record's gap rides on the next fetch.
	if _, err := c.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	// Within one lock: an unsettled control record would hold the start
	// offset until its lock expired (and then again, up to the delivery limit).
	f.waitDrainedWithin(t, ctx, testLock)
	t.Logf("%d offsets acknowledged as gaps", c.gapsSent.Load())
}

func TestKfakeReleaseRedelivers(t *testing.T) {
	testReleaseRedelivers(t, clustertest.Context(t, 2*time.Minute), startKfake(t, 1))
}

func testReleaseRedelivers(t *testing.T, ctx context.Context, bootstrap []string) {
	f := newFixture(t, ctx, bootstrap, 1, 1)
	f.produce(t, ctx, 0, 20)
	c := f.consumer(t, ctx, 5)
	var first []*Record
	pollUntil(t, ctx, c, 10*time.Second, func(recs []*Record) bool { first = recs; return len(recs) > 0 })
	res, err := c.Acknowledge(ctx, AckRecords(Release, first...))
	if err != nil {
		t.Fatalf("release: %v", err)
	}
	if len(res) != 1 || len(res[0].Acks) != 1 {
		t.Errorf("release of %d contiguous records sent as %+v, want one range", len(first), res)
	}
	want := map[int64]bool{}
	for _, r := range first {
		want[r.Offset] = true
	}
	pollUntil(t, ctx, c, 10*time.Second, func(recs []*Record) bool {
		for _, r := range recs {
			if want[r.Offset] {
				if r.DeliveryCount != first[0].DeliveryCount+1 {
					t.Errorf("offset %d redelivered with count %d, want %d", r.Offset, r.DeliveryCount, first[0].DeliveryCount+1)
				}
				delete(want, r.Offset)
			}
		}
		accept(t, ctx, c, recs)
		return len(want) == 0
	})
}

// A consumer closed without acking: the broker releases its records at the
// close, and another member gets them with delivery count 2, before their
// lock would have expired.
func TestKfakeCloseWithoutAckRedeliversToAnother(t *testing.T) {
	testCloseWithoutAck(t, clustertest.Context(t, 2*time.Minute), startKfake(t, 1))
}

func testCloseWithoutAck(t *testing.T, ctx context.Context, bootstrap []string) {
	f := newFixture(t, ctx, bootstrap, 1, 1)
	f.produce(t, ctx, 0, 20)
	a := f.consumer(t, ctx, 5)
	b := f.consumer(t, ctx, 20)
	var held []*Record
	pollUntil(t, ctx, a, 20*time.Second, func(recs []*Record) bool { held = recs; return len(recs) > 0 })
	acquiredAt := time.Now()
	if err := a.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	want := map[int64]bool{}
	for _, r := range held {
		want[r.Offset] = true
	}
	pollUntil(t, ctx, b, 20*time.Second, func(recs []*Record) bool {
		for _, r := range recs {
			if want[r.Offset] {
				if r.DeliveryCount != 2 {
					t.Errorf("offset %d came to the second consumer with count %d, want 2", r.Offset, r.DeliveryCount)
				}
				delete(want, r.Offset)
			}
		}
		accept(t, ctx, b, recs)
		return len(want) == 0
	})
	if waited := time.Since(acquiredAt); waited >= testLock {
		t.Errorf("held records came back after %v: the lock expired, the close released nothing", waited)
	}
	f.waitDrained(t, ctx)
}

// Polling again acknowledges nothing: the first batch stays acquired (the
// share start offset does not move), and comes back only when its lock
// expires, with delivery count 2.
func TestKfakeNoAutoAck(t *testing.T) {
	testNoAutoAck(t, clustertest.Context(t, 2*time.Minute), startKfake(t, 1))
}

func testNoAutoAck(t *testing.T, ctx context.Context, bootstrap []string) {
	f := newFixture(t, ctx, bootstrap, 1, 1)
	f.produce(t, ctx, 0, 10)
	c := f.consumer(t, ctx, 5)
	var first, second []*Record
	pollUntil(t, ctx, c, 10*time.Second, func(recs []*Record) bool { first = recs; return len(recs) > 0 })
	acquiredAt := time.Now()
	pollUntil(t, ctx, c, 10*time.Second, func(recs []*Record) bool { second = recs; return len(recs) > 0 })
	for _, r := range second {
		if slices.ContainsFunc(first, func(f *Record) bool { return f.Offset == r.Offset }) {
			t.Fatalf("offset %d delivered twice within its lock", r.Offset)
		}
	}
	// A third poll finds nothing: everything is held.
	recs, err := c.Poll(ctx)
	if err != nil || len(recs) != 0 {
		t.Fatalf("third poll: %d records, err %v; want none", len(recs), err)
	}
	start, _, err := ctp.ShareProgress(ctx, f.admin, f.group, f.topic)
	if err != nil {
		t.Fatal(err)
	}
	if start[0] != 0 {
		t.Fatalf("share start offset %d after two unacknowledged polls, want 0", start[0])
	}
	want := map[int64]bool{}
	for _, r := range append(first, second...) {
		want[r.Offset] = true
	}
	pollUntil(t, ctx, c, 3*testLock, func(recs []*Record) bool {
		for _, r := range recs {
			if r.DeliveryCount != 2 {
				t.Errorf("offset %d came back with count %d, want 2", r.Offset, r.DeliveryCount)
			}
			delete(want, r.Offset)
		}
		accept(t, ctx, c, recs)
		return len(want) == 0
	})
	if waited := time.Since(acquiredAt); waited < testLock {
		t.Errorf("records came back after %v, before their %v lock expired", waited, testLock)
	}
	f.waitDrained(t, ctx)
}

// An ack the broker refuses is an error, never a silent success: a member
// accepting records another member holds. The second member never fetched,
// so its ack also opens an empty share session first.
func TestKfakeRejectedAckIsReported(t *testing.T) {
	testRejectedAckIsReported(t, clustertest.Context(t, 2*time.Minute), startKfake(t, 1))
}

func testRejectedAckIsReported(t *testing.T, ctx context.Context, bootstrap []string) {
	f := newFixture(t, ctx, bootstrap, 1, 1)
	f.produce(t, ctx, 0, 10)
	a := f.consumer(t, ctx, 5)
	var recs []*Record
	pollUntil(t, ctx, a, 10*time.Second, func(r []*Record) bool { recs = r; return len(r) > 0 })
	b := f.consumer(t, ctx, 5)
	res, err := b.Acknowledge(ctx, AckRecords(Accept, recs...))
	if err == nil {
		t.Fatalf("accept of another member's records succeeded: %+v", res)
	}
	if !errors.Is(err, kerr.InvalidRecordState) {
		t.Errorf("accept of another member's records: %v, want INVALID_RECORD_STATE", err)
	}
	if len(res) != 1 || res[0].Err == nil {
		t.Errorf("results %+v, want the partition's error", res)
	}
	// The holder's own accept still works.
	accept(t, ctx, a, recs)
}

// Renew (KIP-1222) keeps records past their original lock.
func TestKfakeRenewExtendsLock(t *testing.T) {
	testRenewExtendsLock(t, clustertest.Context(t, 2*time.Minute), startKfake(t, 1))
}

func testRenewExtendsLock(t *testing.T, ctx context.Context, bootstrap []string) {
	f := newFixture(t, ctx, bootstrap, 1, 1)
	f.produce(t, ctx, 0, 5)
	c := f.consumer(t, ctx, 5)
	var recs []*Record
	pollUntil(t, ctx, c, 10*time.Second, func(r []*Record) bool { recs = r; return len(r) > 0 })
	for range 3 {
		time.Sleep(testLock / 2)
		if _, err := c.Acknowledge(ctx, AckRecords(Renew, recs...)); err != nil {
			t.Fatalf("renew: %v", err)
		}
	}
	// 1.5 locks after the fetch the records are still ours to accept.
	accept(t, ctx, c, recs)
}

// TestKfakeSpreadSpansPartitionsOfOneLeader: with Spread, one consumer on
// one broker leading both partitions gets polls that hold records of both
// (kfake starts a fetch at a partition of its session map's order, so two
// turns may start at the same one: most polls span, not every one); without
// it, no poll does while its partition has enough (the broker fills a fetch
// from one partition first). A transaction's acks span share-partitions only
// if its poll does.
func TestKfakeSpreadSpansPartitionsOfOneLeader(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, spread := range []bool{true, false} {
		t.Run(fmt.Sprintf("spread=%v", spread), func(t *testing.T) {
			f := newFixture(t, ctx, startKfake(t, 1), 2, 1)
			f.produce(t, ctx, 0, 200)
			c, err := New(ctx, Config{Bootstrap: f.bootstrap, Group: f.group, Topics: []string{f.topic}, MaxRecords: 10, Spread: spread})
			if err != nil {
				t.Fatalf("new consumer: %v", err)
			}
			t.Cleanup(func() { _ = c.Close(context.Background()) })
			polls, spanning := 0, 0
			pollUntil(t, ctx, c, 30*time.Second, func(recs []*Record) bool {
				if len(recs) == 0 {
					return false
				}
				parts := map[int32]bool{}
				for _, r := range recs {
					parts[r.Partition] = true
				}
				polls++
				if len(parts) >= 2 {
					spanning++
				}
				accept(t, ctx, c, recs)
				return polls == 10
			})
			if spread && spanning == 0 {
				t.Errorf("spread: none of %d polls spanned both partitions", polls)
			}
			if !spread && spanning != 0 {
				t.Errorf("without spread: %d of %d polls spanned both partitions; the test no longer shows what Spread is for", spanning, polls)
			}
		})
	}
}
