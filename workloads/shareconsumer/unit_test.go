package shareconsumer

import (
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestCoalesceMergesAndRefusesOverlaps(t *testing.T) {
	got, err := coalesce([]Ack{
		{FirstOffset: 5, LastOffset: 5, Type: Accept}, {FirstOffset: 3, LastOffset: 4, Type: Accept},
		{FirstOffset: 6, LastOffset: 6, Type: Release}, {FirstOffset: 9, LastOffset: 9, Type: Release},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Ack{{FirstOffset: 3, LastOffset: 5, Type: Accept}, {FirstOffset: 6, LastOffset: 6, Type: Release}, {FirstOffset: 9, LastOffset: 9, Type: Release}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := coalesce([]Ack{{FirstOffset: 1, LastOffset: 3, Type: Accept}, {FirstOffset: 3, LastOffset: 3, Type: Reject}}); err == nil {
		t.Error("overlapping acks accepted")
	}
}

// Gaps are only offsets inside batches the response carried: an acquired
// offset with no batch may be a real record cut off by the byte limits.
func TestGapsOnlyInsideCarriedBatches(t *testing.T) {
	acquired := []offsetRange{{0, 9}}
	covered := []offsetRange{{0, 3}, {4, 4}} // data batch 0..3, control batch 4
	have := map[int64]struct{}{0: {}, 1: {}, 3: {}}
	if got, want := gapsOf(acquired, covered, have), []int64{2, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("gaps %v, want %v", got, want)
	}
	if got, want := gapAcks([]int64{2, 3, 4, 7}), []offsetRange{{2, 4}, {7, 7}}; !reflect.DeepEqual(got, want) {
		t.Errorf("gap ranges %v, want %v", got, want)
	}
}

// A batch cut short at the end of the data is dropped, not an error, and not
// counted as covered (so its offsets are not taken for gaps).
func TestDecodeDropsTruncatedLastBatch(t *testing.T) {
	full := batch(t, 10, "a", "b")
	data := append(append([]byte{}, full...), batch(t, 12, "c")...)
	data = data[:len(data)-3]
	recs, covered, err := decodeBatches(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].offset != 10 || string(recs[1].value) != "b" {
		t.Errorf("records %+v", recs)
	}
	if !reflect.DeepEqual(covered, []offsetRange{{10, 11}}) {
		t.Errorf("covered %v, want [{10 11}]", covered)
	}
	corrupt := append([]byte{}, full...)
	corrupt[len(corrupt)-1] ^= 0xff
	if _, _, err := decodeBatches(corrupt); err == nil {
		t.Error("corrupt batch decoded without error")
	}
}

// batch encodes an uncompressed v2 batch with kmsg, CRC included.
func batch(t *testing.T, first int64, values ...string) []byte {
	t.Helper()
	var recs []byte
	for i, v := range values {
		r := kmsg.Record{OffsetDelta: int32(i), Value: []byte(v)}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // minus the 1-byte varint of length 0
		recs = r.AppendTo(recs)
	}
	b := kmsg.RecordBatch{FirstOffset: first, Magic: 2, LastOffsetDelta: int32(len(values) - 1),
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: int32(len(values)), Records: recs}
	raw := b.AppendTo(nil)
	// Length counts from after itself; the CRC covers attributes to the end.
	binary.BigEndian.PutUint32(raw[8:12], uint32(len(raw)-lengthFieldEnd))
	binary.BigEndian.PutUint32(raw[17:21], crc32.Checksum(raw[crcDataStart:], castagnoli))
	return raw
}

// TestSplitShares: the records are split as evenly as whole records allow,
// the remainder going to the brokers from first on, never more than the
// total.
func TestSplitShares(t *testing.T) {
	for _, c := range []struct {
		total int32
		n     int
		first int
		want  []int32
	}{
		{10, 3, 0, []int32{4, 3, 3}},
		{10, 3, 1, []int32{3, 4, 3}},
		{10, 3, 5, []int32{3, 3, 4}},
		{11, 3, 2, []int32{4, 3, 4}},
		{1, 3, 2, []int32{0, 0, 1}},
		{6, 2, 7, []int32{3, 3}},
	} {
		if got := splitShares(c.total, c.n, c.first); !slices.Equal(got, c.want) {
			t.Errorf("splitShares(%d, %d, %d) = %v, want %v", c.total, c.n, c.first, got, c.want)
		}
	}
}
