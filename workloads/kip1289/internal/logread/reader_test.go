package logread

import (
	"context"
	"github.com/sharechaos/sharechaos/internal/clustertest"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func setup(t *testing.T) (*kgo.Client, func(txnID string) *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	newClient := func(opts ...kgo.Opt) *kgo.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("t")}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	return newClient(), func(txnID string) *kgo.Client { return newClient(kgo.TransactionalID(txnID)) }
}

// txn produces values in one transaction and commits or aborts it.
func txn(t *testing.T, p *kgo.Client, commit bool, values ...string) {
	t.Helper()
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if err := p.ProduceSync(clustertest.Context(t, 20*time.Second), kgo.StringRecord(v)).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.EndTransaction(clustertest.Context(t, 20*time.Second), kgo.TransactionEndTry(commit)); err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, r *Partition, target int64) []string {
	t.Helper()
	var got []string
	if err := r.ReadTo(clustertest.Context(t, 20*time.Second), target, func(rec *kgo.Record) error {
		got = append(got, string(rec.Value))
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	return got
}

// The last offset below the high watermark is a commit marker, which a
// read_committed consumer never sees: the read must end on position.
func TestReadToEndsOnPositionPastControlRecords(t *testing.T) {
	cl, producer := setup(t)
	p := producer("p")
	txn(t, p, true, "a", "b")
	txn(t, p, false, "aborted")
	txn(t, p, true, "c")
	high, err := EndOffset(clustertest.Context(t, 20*time.Second), cl, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	// a b marker aborted marker c marker
	if high != 7 {
		t.Fatalf("high watermark %d, want 7", high)
	}
	r := New(cl, "t", 0, 0, 50*time.Millisecond)
	got := readAll(t, r, high)
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Errorf("read %v, want [a b c]", got)
	}
	if r.Position() != high {
		t.Errorf("position %d, want %d", r.Position(), high)
	}
	// Only aborted data and markers: nothing to hand out, the position still moves.
	txn(t, p, false, "x", "y")
	high2, _ := EndOffset(clustertest.Context(t, 20*time.Second), cl, "t", 0)
	if got := readAll(t, r, high2); len(got) != 0 || r.Position() != high2 {
		t.Errorf("after an aborted transaction: read %v, position %d, want nothing and %d", got, r.Position(), high2)
	}
	if start, err := StartOffset(clustertest.Context(t, 20*time.Second), cl, "t", 0); err != nil || start != 0 {
		t.Errorf("start offset %d, %v", start, err)
	}
}

// A read cannot pass an open transaction: it waits (calling idle) until the
// transaction ends.
func TestReadToWaitsForOpenTransaction(t *testing.T) {
	cl, producer := setup(t)
	open := producer("open")
	if err := open.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := open.ProduceSync(clustertest.Context(t, 20*time.Second), kgo.StringRecord("pending")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	high, _ := EndOffset(clustertest.Context(t, 20*time.Second), cl, "t", 0)
	r := New(cl, "t", 0, 0, 20*time.Millisecond)
	idle := make(chan struct{}, 100)
	done := make(chan []string, 1)
	go func() {
		var got []string
		err := r.ReadTo(context.Background(), high, func(rec *kgo.Record) error {
			got = append(got, string(rec.Value))
			return nil
		}, func() {
			select {
			case idle <- struct{}{}:
			default:
			}
		})
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	for range 3 {
		select {
		case <-idle:
		case got := <-done:
			t.Fatalf("read returned %v while the transaction was open", got)
		case <-clustertest.Context(t, 20*time.Second).Done():
			t.Fatal("read neither waited nor returned")
		}
	}
	if err := open.EndTransaction(clustertest.Context(t, 20*time.Second), kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	if got := <-done; len(got) != 1 || got[0] != "pending" {
		t.Errorf("read %v after the commit, want [pending]", got)
	}
}

func TestReadToStopsWithContext(t *testing.T) {
	cl, _ := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	r := New(cl, "t", 0, 0, 20*time.Millisecond)
	if err := r.ReadTo(ctx, 5, func(*kgo.Record) error { return nil }, nil); err == nil {
		t.Error("reading past the end of an empty partition returned without error")
	}
}
