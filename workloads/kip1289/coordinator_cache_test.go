package kip1289

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/clustertest"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// The native sender finds its coordinators once and keeps them: a
// transaction's acks cost AddShareAcksToTxn and TxnShareAcknowledge, no
// FindCoordinator and (the loop vouching that it produced first) no
// DescribeTransactions. A share coordinator that answers NOT_COORDINATOR is
// looked up again, and the retry lands.
func TestSenderCachesCoordinators(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	acker, err := NewNativeAcker(NativeConfig{Keys: e.keys, ConsumerLeavesAcks: true,
		Metadata: func(context.Context) (ShareGroupMetadata, error) { return group, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer acker.Close()
	producer := e.producer(t, "t-cache")
	commit := func(seq int64) {
		t.Helper()
		beginWithRecord(ctx, t, producer, "o")
		if err := acker.AddAcks(ctx, ctp.Txn{Worker: "w1.1", Seq: seq, Producer: producer}, recs("in", 0, 1, 2)); err != nil {
			t.Fatal(err)
		}
		if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
	}
	commit(1)
	before := e.em.findCoordinators()
	commit(2)
	commit(3)
	if n := e.em.findCoordinators() - before; n != 0 {
		t.Errorf("two more transactions sent %d FindCoordinator, want 0 (cached)", n)
	}
	e.em.failPartitionOnce(0, kerr.NotCoordinator.Code)
	before = e.em.findCoordinators()
	commit(4)
	if n := e.em.findCoordinators() - before; n != 1 {
		t.Errorf("after NOT_COORDINATOR: %d FindCoordinator, want 1 (the moved coordinator asked again)", n)
	}
	if _, acked := e.em.seen(); len(acked) != 5 {
		t.Errorf("%d TxnShareAcknowledge, want 5 (one a transaction, and the retry)", len(acked))
	}
	if !coordinatorMoved(kerr.CoordinatorNotAvailable) || coordinatorMoved(kerr.CoordinatorLoadInProgress) || coordinatorMoved(nil) ||
		coordinatorMoved(kerr.InvalidRecordState) || !coordinatorMoved(context.DeadlineExceeded) {
		t.Error("coordinatorMoved: want moved for NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and transport errors only")
	}
}
