package ctp

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestReadBackPastAnAbortedTail: a partition whose records after the last
// committed one are an aborted transaction and its marker is read to its
// end at once, not after readStall: kgo never hands the read-back a fetch
// with no record, so only the probe of the tail can tell it that nothing
// visible is left (the commit-unchecked mutant's HARNESS-ERROR).
func TestReadBackPastAnAbortedTail(t *testing.T) {
	c, ctx := readBackCluster(t, 20*time.Second)
	txn := producerTo(t, c, kgo.TransactionalID("tail"))
	produce := func() {
		for p := range int32(2) {
			for range 3 {
				if err := txn.ProduceSync(ctx, &kgo.Record{Partition: p, Value: []byte("v")}).FirstErr(); err != nil {
					t.Error(err)
				}
			}
		}
	}
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produce()
	if err := txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	// The next transaction is still open when the read-back begins (its
	// end offsets include it) and aborts while the read-back waits on it.
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produce()
	go func() {
		time.Sleep(1500 * time.Millisecond)
		if err := txn.EndTransaction(ctx, kgo.TryAbort); err != nil {
			t.Error(err)
		}
	}()
	began := time.Now()
	out, err := ReadOutputs(ctx, c.ListenAddrs(), readBackTopic)
	took := time.Since(began)
	if err != nil {
		t.Fatalf("read-back past an aborted tail: %v (after %v)", err, took.Round(time.Millisecond))
	}
	if len(out) != 6 {
		t.Errorf("read %d records, want the 6 committed", len(out))
	}
	if took > readStall/2 {
		t.Errorf("read-back took %v: it waited for the stall instead of probing the tail", took.Round(time.Millisecond))
	}
}
