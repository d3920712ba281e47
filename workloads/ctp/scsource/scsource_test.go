package scsource

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// setup starts kfake with a short lock, creates a one-partition topic with
// n records and returns a worker config for it.
func setup(t *testing.T, ctx context.Context, mode ctp.AckMode, n int) ctp.WorkerConfig {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{
		"group.share.record.lock.duration.ms": "3000",
		"share.record.lock.sweep.interval.ms": "100",
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	bs := c.ListenAddrs()
	admin, err := kgo.NewClient(kgo.SeedBrokers(bs...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := kadm.NewClient(admin).CreateTopic(ctx, 1, 1, nil, "in"); err != nil {
		t.Fatal(err)
	}
	if err := ctp.SetGroupConfigs(ctx, admin, "g", ctp.GroupConfig{}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := admin.ProduceSync(ctx, &kgo.Record{Topic: "in", Key: []byte("k" + strconv.Itoa(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return ctp.WorkerConfig{Bootstrap: bs, Group: "g", InputTopic: "in", Mode: mode, MaxRecords: int32(n), RequestTimeout: ctp.Duration(5 * time.Second)}
}

func pollSome(t *testing.T, ctx context.Context, s ctp.ShareSource, max int) []*kgo.Record {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		got := s.Poll(pctx, max)
		cancel()
		if len(got) > 0 {
			return got
		}
	}
	t.Fatal("nothing polled in 10s")
	return nil
}

// TestExplicitReleaseRedelivers: records come as kgo records with their
// delivery count and member; a RELEASE brings them back with the count
// raised; nothing is acked unasked.
func TestExplicitReleaseRedelivers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Open(ctx, setup(t, ctx, ctp.Explicit, 3))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if id, epoch := s.Member(); id == "" || epoch <= 0 || s.Client() != nil {
		t.Errorf("member %q epoch %d client %v: want our member and no kgo client", id, epoch, s.Client())
	}
	first := pollSome(t, ctx, s, 3)
	if acquiredBy(first[0]) == nil {
		t.Fatal("record carries no share consumer record")
	}
	if got := acquiredBy(first[0]).DeliveryCount; got != 1 {
		t.Errorf("first delivery count %d, want 1", got)
	}
	if rejected, err := s.Ack(ctx, kgo.AckRelease, first); err != nil || len(rejected) > 0 {
		t.Fatalf("release: %v %v", rejected, err)
	}
	again := pollSome(t, ctx, s, 3)
	if got := acquiredBy(again[0]).DeliveryCount; got != 2 || string(again[0].Key) != string(first[0].Key) {
		t.Errorf("after release: %s delivery %d, want %s delivery 2", again[0].Key, got, first[0].Key)
	}
	if rejected, err := s.Ack(ctx, kgo.AckAccept, again); err != nil || len(rejected) > 0 {
		t.Fatalf("accept: %v %v", rejected, err)
	}
}

// TestImplicitAcceptsOnNextPoll: as kgo's consumer, the next poll accepts the
// previous batch the loop did not settle, so it never comes back.
func TestImplicitAcceptsOnNextPoll(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := setup(t, ctx, ctp.Implicit, 4)
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	first := pollSome(t, ctx, s, 2)
	rest := pollSome(t, ctx, s, 4) // accepts first
	for _, r := range rest {
		for _, f := range first {
			if string(r.Key) == string(f.Key) {
				t.Fatalf("%s delivered again after the next poll should have accepted it", r.Key)
			}
		}
	}
	// Release what is left; after the lock a new member sees only them.
	if _, err := s.Ack(ctx, kgo.AckRelease, rest); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got := pollSome(t, ctx, s2, 4)
	if len(got) != len(rest) {
		t.Errorf("a new member got %d records, want the %d released", len(got), len(rest))
	}
}
