package wire

import (
	"bytes"
	"reflect"
	"testing"
)

// roundTrip encodes m, decodes into fresh, and checks equality and that a
// second encoding is byte-identical.
func roundTrip(t *testing.T, m message, fresh message) {
	t.Helper()
	b := m.AppendTo(nil)
	if err := fresh.ReadFrom(b); err != nil {
		t.Fatalf("decode %T: %v", m, err)
	}
	if !reflect.DeepEqual(m, fresh) {
		t.Fatalf("round trip %T:\n got %+v\nwant %+v", m, fresh, m)
	}
	if again := fresh.AppendTo(nil); !bytes.Equal(again, b) {
		t.Fatalf("re-encode %T differs:\n%x\n%x", m, again, b)
	}
}

func TestRoundTrip(t *testing.T) {
	tags := Tags{{Tag: 0, Value: nil}, {Tag: 300, Value: []byte("x")}}
	roundTrip(t, &AddShareAcksToTxnRequest{
		TransactionalID: "worker-1", ProducerID: -1, ProducerEpoch: -1, GroupID: "cell/steady",
		Topics: []AddShareAcksToTxnRequestTopic{
			{Topic: "a", Partitions: []int32{0, 1, 2}, UnknownTags: tags},
			{Topic: "", Partitions: nil},
		},
		UnknownTags: tags,
	}, &AddShareAcksToTxnRequest{})
	roundTrip(t, &AddShareAcksToTxnResponse{ThrottleMillis: -1, ErrorCode: 51}, &AddShareAcksToTxnResponse{})
	roundTrip(t, &TxnShareAcknowledgeRequest{
		GroupID: "g", TransactionalID: "t", ProducerID: 1 << 40, ProducerEpoch: 32767,
		Topics: []TxnShareAcknowledgeRequestTopic{
			{TopicID: topicID, Partitions: []TxnShareAcknowledgeRequestPartition{
				{Partition: 0, AcknowledgementBatches: []AcknowledgementBatch{{FirstOffset: 0, LastOffset: 1 << 50, AcknowledgeType: 3, UnknownTags: tags}}},
				{Partition: 7, UnknownTags: tags},
			}},
			{TopicID: [16]byte{0xff}},
		},
	}, &TxnShareAcknowledgeRequest{})
	roundTrip(t, &TxnShareAcknowledgeResponse{
		ThrottleMillis: 5,
		Topics: []TxnShareAcknowledgeResponseTopic{{TopicID: topicID,
			Partitions: []TxnShareAcknowledgeResponsePartition{{Partition: 3, ErrorCode: 90, UnknownTags: tags}}}},
		UnknownTags: tags,
	}, &TxnShareAcknowledgeResponse{})
}
