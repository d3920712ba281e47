package kip1289

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/clustertest"
)

// A share-partition that refuses its acks while a sibling in the same
// TxnShareAcknowledge is told to retry stays refused: the retry resends only
// the sibling, and its success must not hide the refusal. Committing then
// would commit the refused partition's outputs without its acks, and its
// records would be delivered and processed again (FINDINGS 27: a leader
// failover refuses one partition, INVALID_RECORD_STATE at the new leader,
// while another waits for its share coordinator).
func TestRefusalSurvivesASiblingsRetry(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	producer := e.producer(t, "t-partial")
	sender, err := NewSender(producer, e.keys)
	if err != nil {
		t.Fatal(err)
	}
	beginWithRecord(ctx, t, producer, "o")
	e.em.failPartition(0, kerr.InvalidRecordState.Code)
	e.em.failPartitionOnce(1, kerr.NotLeaderForPartition.Code)
	acks, _ := FromRecords(append(recs("in", 0, 1, 2), recs("in", 1, 3)...), AckAccept)
	err = sender.SendShareAcksToTransaction(ctx, acks, group)
	var pe PartitionErrors
	if !errors.As(err, &pe) || !errors.Is(err, kerr.InvalidRecordState) || len(pe) != 1 || pe[0].Partition != 0 {
		t.Fatalf("send: %v, want in/0 refused INVALID_RECORD_STATE (and in/1, retried, not named)", err)
	}
	_, acked := e.em.seen()
	var sentP1 int
	for _, req := range acked {
		for _, rt := range req.Topics {
			for _, rp := range rt.Partitions {
				if rp.Partition == 1 {
					sentP1++
				}
			}
		}
	}
	if sentP1 != 2 {
		t.Errorf("in/1 sent %d times, want 2 (the NOT_LEADER answer, then the retry)", sentP1)
	}
	if err := producer.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
}
