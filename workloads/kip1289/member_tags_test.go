package kip1289

import (
	"github.com/sharechaos/sharechaos/internal/clustertest"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestTxnShareAcknowledgeCarriesMember: a member id with a live epoch goes
// with TxnShareAcknowledge as the proposed amendment's tagged fields; without
// one the request is the KIP as written (no tags).
func TestTxnShareAcknowledgeCarriesMember(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	producer := e.producer(t, "t-member")
	sender, err := NewSender(producer, e.keys)
	if err != nil {
		t.Fatal(err)
	}
	send := func(md ShareGroupMetadata) {
		t.Helper()
		if err := producer.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := producer.ProduceSync(ctx, kgo.StringRecord("out")).FirstErr(); err != nil {
			t.Fatal(err)
		}
		acks, _ := FromRecords(recs("in", 0, 1), AckAccept)
		if err := sender.SendShareAcksToTransaction(ctx, acks, md); err != nil {
			t.Fatal(err)
		}
		if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
	}
	send(ShareGroupMetadata{GroupID: "g", MemberID: "m-1", GenerationID: 7})
	send(ShareGroupMetadata{GroupID: "g"})
	_, acked := e.em.seen()
	if len(acked) != 2 {
		t.Fatalf("emulator saw %d TxnShareAcknowledge, want 2", len(acked))
	}
	if m, ep := acked[0].MemberID, acked[0].MemberEpoch; m == nil || *m != "m-1" || ep == nil || *ep != 7 {
		t.Errorf("with a member: tags %v %v, want m-1 epoch 7", m, ep)
	}
	if acked[1].MemberID != nil || acked[1].MemberEpoch != nil {
		t.Errorf("without a member: tags %v %v, want none", acked[1].MemberID, acked[1].MemberEpoch)
	}
}
