package wire

import "testing"

// The member tags, written by hand: tag 0 is a compact string, tag 1 an
// int32, each as (tag, size, bytes) in the request's top-level tag section.
var txnShareAcknowledgeMemberGolden = `
	02 67                                # GroupId "g"
	03 7478                              # TransactionalId "tx"
	0000000000000009                     # ProducerId 9
	0002                                 # ProducerEpoch 2
	01                                   # Topics: 0
	03                                   # tags: 3
	  00 03 03 6d31                      #   tag 0 MemberId "m1": size 3, compact string
	  01 04 00000007                     #   tag 1 MemberEpoch 7
	  05 01 ff                           #   tag 5 unknown, one byte
`

func TestGoldenTxnShareAcknowledgeMemberTags(t *testing.T) {
	id, epoch := "m1", int32(7)
	want := &TxnShareAcknowledgeRequest{
		GroupID: "g", TransactionalID: "tx", ProducerID: 9, ProducerEpoch: 2,
		MemberID: &id, MemberEpoch: &epoch,
		UnknownTags: Tags{{Tag: 5, Value: []byte{0xff}}},
	}
	checkGolden(t, golden(t, txnShareAcknowledgeMemberGolden), want, &TxnShareAcknowledgeRequest{})
}

// Absent member tags are the KIP as written: the encoding is unchanged.
func TestMemberTagsAbsentKeepEncoding(t *testing.T) {
	req := &TxnShareAcknowledgeRequest{GroupID: "g", TransactionalID: "tx"}
	b := req.AppendTo(nil)
	if b[len(b)-1] != 0 {
		t.Fatalf("absent member tags wrote a tag section: %x", b)
	}
	var got TxnShareAcknowledgeRequest
	if err := got.ReadFrom(b); err != nil {
		t.Fatal(err)
	}
	if got.MemberID != nil || got.MemberEpoch != nil {
		t.Errorf("decoded member %v epoch %v from a request without them", got.MemberID, got.MemberEpoch)
	}
}

func TestMemberTagsRoundTrip(t *testing.T) {
	id, epoch := "", int32(-1)
	roundTrip(t, &TxnShareAcknowledgeRequest{GroupID: "g", TransactionalID: "t", MemberID: &id}, &TxnShareAcknowledgeRequest{})
	roundTrip(t, &TxnShareAcknowledgeRequest{GroupID: "g", TransactionalID: "t", MemberEpoch: &epoch,
		UnknownTags: Tags{{Tag: 0x7f, Value: []byte("z")}, {Tag: 300, Value: nil}}}, &TxnShareAcknowledgeRequest{})
}

func TestMemberTagsRejectMalformed(t *testing.T) {
	for name, hex := range map[string]string{
		"epoch of 3 bytes":      `02 67 03 7478 0000000000000001 0000 01 01 01 03 000000`,
		"member id null":        `02 67 03 7478 0000000000000001 0000 01 01 00 01 00`,
		"member id with excess": `02 67 03 7478 0000000000000001 0000 01 01 00 03 02 61 61`,
	} {
		t.Run(name, func(t *testing.T) {
			var req TxnShareAcknowledgeRequest
			if err := req.ReadFrom(unhex(t, hex)); err == nil {
				t.Errorf("decoded %+v without error", req)
			}
		})
	}
}

func FuzzTxnShareAcknowledgeRequestMember(f *testing.F) {
	fuzzDecoder(f, txnShareAcknowledgeMemberGolden, func() message { return &TxnShareAcknowledgeRequest{} })
}
