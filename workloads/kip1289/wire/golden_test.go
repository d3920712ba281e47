package wire

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

// The golden bytes below are written by hand from the schemas in the type
// comments (KIP-482 flexible encoding: a compact string or array is its
// length+1 as an unsigned varint; every struct ends with a tagged-field
// count), not produced by this package's encoder.

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var addShareAcksToTxnRequestGolden = `
	03 7478                  # TransactionalId "tx"
	0000000000000007         # ProducerId 7
	0003                     # ProducerEpoch 3
	02 67                    # GroupId "g"
	02                       # Topics: 1
	  03 696e                #   Name "in"
	  03 00000000 00000002   #   Partitions [0, 2]
	  00                     #   tags
	00                       # tags
`

var addShareAcksToTxnResponseGolden = `
	00000010                 # ThrottleTimeMs 16
	005a                     # ErrorCode 90 PRODUCER_FENCED
	01 05 02 abcd            # tags: one field, tag 5, two bytes
`

var txnShareAcknowledgeRequestGolden = `
	02 67                                # GroupId "g"
	03 7478                              # TransactionalId "tx"
	0102030405060708                     # ProducerId
	0001                                 # ProducerEpoch 1
	02                                   # Topics: 1
	  000102030405060708090a0b0c0d0e0f   #   TopicId
	  02                                 #   Partitions: 1
	    00000001                         #     Partition 1
	    03                               #     AcknowledgementBatches: 2
	      000000000000000a 000000000000000c 01 00   # 10..12 accept, tags
	      000000000000000d 000000000000000d 02 00   # 13..13 release, tags
	    00                               #     tags
	  00                                 #   tags
	00                                   # tags
`

var txnShareAcknowledgeResponseGolden = `
	00000000                             # ThrottleTimeMs 0
	02                                   # Topics: 1
	  000102030405060708090a0b0c0d0e0f   #   TopicId
	  03                                 #   Partitions: 2
	    00000001 0000 00                 #     1: NONE
	    00000002 0030 00                 #     2: INVALID_TXN_STATE (48)
	  00                                 #   tags
	00                                   # tags
`

// stripComments drops "# ..." to the end of each line.
func stripComments(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		out = append(out, line)
	}
	return strings.Join(out, " ")
}

func golden(t testing.TB, s string) []byte { return unhex(t, stripComments(s)) }

var topicID = [16]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

func TestGoldenAddShareAcksToTxnRequest(t *testing.T) {
	want := &AddShareAcksToTxnRequest{
		TransactionalID: "tx", ProducerID: 7, ProducerEpoch: 3, GroupID: "g",
		Topics: []AddShareAcksToTxnRequestTopic{{Topic: "in", Partitions: []int32{0, 2}}},
	}
	checkGolden(t, golden(t, addShareAcksToTxnRequestGolden), want, &AddShareAcksToTxnRequest{})
}

func TestGoldenAddShareAcksToTxnResponse(t *testing.T) {
	want := &AddShareAcksToTxnResponse{ThrottleMillis: 16, ErrorCode: 90,
		UnknownTags: Tags{{Tag: 5, Value: []byte{0xab, 0xcd}}}}
	checkGolden(t, golden(t, addShareAcksToTxnResponseGolden), want, &AddShareAcksToTxnResponse{})
}

func TestGoldenTxnShareAcknowledgeRequest(t *testing.T) {
	want := &TxnShareAcknowledgeRequest{
		GroupID: "g", TransactionalID: "tx", ProducerID: 0x0102030405060708, ProducerEpoch: 1,
		Topics: []TxnShareAcknowledgeRequestTopic{{
			TopicID: topicID,
			Partitions: []TxnShareAcknowledgeRequestPartition{{
				Partition: 1,
				AcknowledgementBatches: []AcknowledgementBatch{
					{FirstOffset: 10, LastOffset: 12, AcknowledgeType: 1},
					{FirstOffset: 13, LastOffset: 13, AcknowledgeType: 2},
				},
			}},
		}},
	}
	checkGolden(t, golden(t, txnShareAcknowledgeRequestGolden), want, &TxnShareAcknowledgeRequest{})
}

func TestGoldenTxnShareAcknowledgeResponse(t *testing.T) {
	want := &TxnShareAcknowledgeResponse{
		Topics: []TxnShareAcknowledgeResponseTopic{{
			TopicID: topicID,
			Partitions: []TxnShareAcknowledgeResponsePartition{
				{Partition: 1, ErrorCode: 0},
				{Partition: 2, ErrorCode: 48},
			},
		}},
	}
	checkGolden(t, golden(t, txnShareAcknowledgeResponseGolden), want, &TxnShareAcknowledgeResponse{})
}

// A string longer than 126 bytes needs a two-byte varint length: 201 =
// 0xc9 0x01 for 200 bytes.
func TestGoldenLongGroupID(t *testing.T) {
	group := strings.Repeat("a", 200)
	b := golden(t, `03 7478 0000000000000001 0000 c901`)
	b = append(b, group...)
	b = append(b, golden(t, `01 00`)...) // Topics: 0; tags
	want := &AddShareAcksToTxnRequest{TransactionalID: "tx", ProducerID: 1, GroupID: group}
	checkGolden(t, b, want, &AddShareAcksToTxnRequest{})
}

type message interface {
	AppendTo([]byte) []byte
	ReadFrom([]byte) error
}

// checkGolden checks both directions: the encoder writes exactly the golden
// bytes, and the decoder reads them back into want.
func checkGolden(t *testing.T, b []byte, want, into message) {
	t.Helper()
	if got := want.AppendTo(nil); !bytes.Equal(got, b) {
		t.Errorf("encode:\n got %x\nwant %x", got, b)
	}
	if err := into.ReadFrom(b); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if !reflect.DeepEqual(into, want) {
		t.Errorf("decode:\n got %+v\nwant %+v", into, want)
	}
}

// Every strict prefix of a golden message is an error, never a panic, and a
// trailing byte is an error too.
func TestDecodeRejectsTruncatedAndTrailing(t *testing.T) {
	cases := []struct {
		name  string
		bytes string
		new   func() message
	}{
		{"AddShareAcksToTxnRequest", addShareAcksToTxnRequestGolden, func() message { return &AddShareAcksToTxnRequest{} }},
		{"AddShareAcksToTxnResponse", addShareAcksToTxnResponseGolden, func() message { return &AddShareAcksToTxnResponse{} }},
		{"TxnShareAcknowledgeRequest", txnShareAcknowledgeRequestGolden, func() message { return &TxnShareAcknowledgeRequest{} }},
		{"TxnShareAcknowledgeResponse", txnShareAcknowledgeResponseGolden, func() message { return &TxnShareAcknowledgeResponse{} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := golden(t, c.bytes)
			for n := range len(b) {
				if err := c.new().ReadFrom(b[:n]); err == nil {
					t.Errorf("prefix of %d/%d bytes decoded without error", n, len(b))
				}
			}
			if err := c.new().ReadFrom(append(b, 0)); err == nil {
				t.Error("a trailing byte decoded without error")
			}
		})
	}
}

func TestDecodeRejectsBadInput(t *testing.T) {
	cases := []struct {
		name string
		msg  message
		hex  string
	}{
		{"null transactional id", &AddShareAcksToTxnRequest{}, `00 0000000000000007 0003 02 67 01 00`},
		{"null topics array", &AddShareAcksToTxnRequest{}, `03 7478 0000000000000007 0003 02 67 00 00`},
		{"array longer than the message", &AddShareAcksToTxnRequest{}, `03 7478 0000000000000007 0003 02 67 ffffff0f 00`},
		{"varint past 32 bits", &AddShareAcksToTxnResponse{}, `00000000 0000 ffffffff7f`},
		{"unknown version", &AddShareAcksToTxnResponse{Version: 1}, `00000000 0000 00`},
		{"TxnShareAcknowledge v2", &TxnShareAcknowledgeResponse{Version: 2}, `00000000 01 00`},
		{"partitions claim more batches than bytes", &TxnShareAcknowledgeRequest{},
			`02 67 03 7478 0000000000000001 0000 02 000102030405060708090a0b0c0d0e0f 02 00000001 7f 00 00 00`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.msg.ReadFrom(unhex(t, c.hex)); err == nil {
				t.Errorf("decoded %+v without error", c.msg)
			}
		})
	}
}

func TestKeysAndVersions(t *testing.T) {
	req := &AddShareAcksToTxnRequest{}
	if req.Key() != DefaultAddShareAcksToTxnKey || !req.IsFlexible() || req.MaxVersion() != 0 {
		t.Errorf("default AddShareAcksToTxn: key %d flexible %v max %d", req.Key(), req.IsFlexible(), req.MaxVersion())
	}
	req.APIKey = 1000
	if k := req.ResponseKind().Key(); k != 1000 {
		t.Errorf("response of a request with key 1000 has key %d", k)
	}
	ack := &TxnShareAcknowledgeRequest{APIKey: 1001}
	if ack.Key() != 1001 || ack.ResponseKind().Key() != 1001 || ack.ResponseKind().RequestKind().Key() != 1001 {
		t.Error("TxnShareAcknowledge does not carry its configured key through response and back")
	}
	if (&TxnShareAcknowledgeRequest{}).Key() != DefaultTxnShareAcknowledgeKey {
		t.Error("TxnShareAcknowledge default key")
	}
	if ack.MaxVersion() != 1 || ack.ResponseKind().MaxVersion() != 1 {
		t.Errorf("TxnShareAcknowledge max version %d, want 1 (v1: to the partition leader)", ack.MaxVersion())
	}
}

// TxnShareAcknowledge v1 has v0's layout: only where it is sent differs.
func TestTxnShareAcknowledgeV1IsV0Layout(t *testing.T) {
	id, epoch := "m", int32(3)
	v0 := &TxnShareAcknowledgeRequest{GroupID: "g", TransactionalID: "t", ProducerID: 7, ProducerEpoch: 2,
		Topics: []TxnShareAcknowledgeRequestTopic{{TopicID: topicID, Partitions: []TxnShareAcknowledgeRequestPartition{
			{Partition: 1, AcknowledgementBatches: []AcknowledgementBatch{{FirstOffset: 4, LastOffset: 9, AcknowledgeType: 1}}}}}},
		MemberID: &id, MemberEpoch: &epoch}
	v1 := *v0
	v1.Version = TxnShareAcknowledgeToLeader
	b0, b1 := v0.AppendTo(nil), v1.AppendTo(nil)
	if !bytes.Equal(b0, b1) {
		t.Fatalf("v1 encodes differently:\n%x\n%x", b0, b1)
	}
	got := &TxnShareAcknowledgeRequest{Version: TxnShareAcknowledgeToLeader}
	if err := got.ReadFrom(b1); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, &v1) {
		t.Errorf("v1 round trip:\n got %+v\nwant %+v", got, &v1)
	}
}
