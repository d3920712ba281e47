package kip1289

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/clustertest"
	"github.com/sharechaos/sharechaos/workloads/ctp"
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
		beginWithRecord(ctx, t, producer, "out")
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

// TestNativeAckerOmitsMemberTags: the native realization sends the member id
// and epoch its consumer knows, unless told to omit them (the run's
// --kip1289-member-tags omit): then TxnShareAcknowledge is the KIP as
// written.
func TestNativeAckerOmitsMemberTags(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	for _, omit := range []bool{false, true} {
		acker, err := NewNativeAcker(NativeConfig{Keys: e.keys, ConsumerLeavesAcks: true, OmitMemberTags: omit,
			Metadata: func(context.Context) (ShareGroupMetadata, error) { return group, nil }})
		if err != nil {
			t.Fatal(err)
		}
		producer := e.producer(t, fmt.Sprintf("t-omit-%v", omit))
		beginWithRecord(ctx, t, producer, "o")
		txn := ctp.Txn{Worker: "w1.1", Seq: 1, Producer: producer, MemberID: "m-1", MemberEpoch: 3}
		if err := acker.AddAcks(ctx, txn, recs("in", 0, 1)); err != nil {
			t.Fatal(err)
		}
		if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		acker.Close()
	}
	_, acked := e.em.seen()
	if len(acked) != 2 {
		t.Fatalf("emulator saw %d TxnShareAcknowledge, want 2", len(acked))
	}
	if m, ep := acked[0].MemberID, acked[0].MemberEpoch; m == nil || *m != "m-1" || ep == nil || *ep != 3 {
		t.Errorf("send: tags %v %v, want m-1 epoch 3", m, ep)
	}
	if acked[1].MemberID != nil || acked[1].MemberEpoch != nil {
		t.Errorf("omit: tags %v %v, want none", acked[1].MemberID, acked[1].MemberEpoch)
	}
}
