package embedded

import (
	"encoding/binary"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// frame is a size-prefixed request (header v2, client id "c") or response
// (header v1) of body.
func frame(header, body []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(header)+len(body)))
	return append(append(out, header...), body...)
}

func reqHeader(version int16, corr int32) []byte {
	h := binary.BigEndian.AppendUint16(nil, shareFetchKey)
	h = binary.BigEndian.AppendUint16(h, uint16(version))
	h = binary.BigEndian.AppendUint32(h, uint32(corr))
	h = binary.BigEndian.AppendUint16(h, 1)
	return append(append(h, 'c'), 0) // client id "c", no tags
}

func TestJavaCompat(t *testing.T) {
	c := &javaCompatConn{versions: map[int32]int16{}}

	// An acknowledgement-only ShareFetch becomes a renew-ack one.
	req := kmsg.NewPtrShareFetchRequest()
	req.Version = 2
	req.MaxBytes = 0 // as the Java client's acknowledgement-only fetch (kmsg's default is the schema's max)
	rt := kmsg.NewShareFetchRequestTopic()
	rp := kmsg.NewShareFetchRequestTopicPartition()
	rp.AcknowledgementBatches = append(rp.AcknowledgementBatches, kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch())
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	out := c.request(frame(reqHeader(2, 7), req.AppendTo(nil)))
	got := kmsg.NewPtrShareFetchRequest()
	got.Version = 2
	if err := got.ReadFrom(out[4+len(reqHeader(2, 7)):]); err != nil || !got.IsRenewAck {
		t.Fatalf("ack-only ShareFetch: renew-ack %v, err %v", got.IsRenewAck, err)
	}

	// A session change without acks asks for one record.
	req.Topics[0].Partitions[0].AcknowledgementBatches = nil
	out = c.request(frame(reqHeader(2, 8), req.AppendTo(nil)))
	got = kmsg.NewPtrShareFetchRequest()
	got.Version = 2
	if err := got.ReadFrom(out[4+len(reqHeader(2, 8)):]); err != nil || got.IsRenewAck || got.MaxRecords != 1 {
		t.Fatalf("session-change ShareFetch: renew-ack %v, max records %d, err %v", got.IsRenewAck, got.MaxRecords, err)
	}

	// A fetch that asks for records passes byte for byte.
	req.MaxRecords, req.MaxWaitMillis = 10, 100
	in := frame(reqHeader(2, 9), req.AppendTo(nil))
	if out := c.request(in); string(out) != string(in) {
		t.Fatal("a real fetch was rewritten")
	}

	// The response to 7: a null Records becomes empty.
	resp := kmsg.NewPtrShareFetchResponse()
	resp.Version = 2
	t0 := kmsg.NewShareFetchResponseTopic()
	t0.Partitions = append(t0.Partitions, kmsg.NewShareFetchResponseTopicPartition())
	resp.Topics = append(resp.Topics, t0)
	respHeader := append(binary.BigEndian.AppendUint32(nil, 7), 0)
	out = c.response(frame(respHeader, resp.AppendTo(nil)))
	back := kmsg.NewPtrShareFetchResponse()
	back.Version = 2
	if err := back.ReadFrom(out[4+len(respHeader):]); err != nil {
		t.Fatal(err)
	}
	if r := back.Topics[0].Partitions[0].Records; r == nil {
		t.Fatal("Records still null")
	}
	if len(c.versions) != 2 { // 8 and 9 still in flight
		t.Errorf("in-flight versions %v", c.versions)
	}
}
