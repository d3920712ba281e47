package kip1289

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

func recs(topic string, partition int32, offsets ...int64) []*kgo.Record {
	out := make([]*kgo.Record, len(offsets))
	for i, o := range offsets {
		out[i] = &kgo.Record{Topic: topic, Partition: partition, Offset: o}
	}
	return out
}

func TestFromRecordsCoalescesContiguousOffsets(t *testing.T) {
	in := append(recs("in", 0, 7, 3, 4, 5, 9, 4), recs("in", 1, 0)...)
	got, err := FromRecords(in, AckAccept)
	if err != nil {
		t.Fatal(err)
	}
	want := ShareAcknowledgements{
		{"in", 0}: {{3, 5, AckAccept}, {7, 7, AckAccept}, {9, 9, AckAccept}},
		{"in", 1}: {{0, 0, AckAccept}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if got.Len() != 6 {
		t.Errorf("Len = %d, want 6 distinct offsets", got.Len())
	}
	if tps := got.Partitions(); !reflect.DeepEqual(tps, []TopicPartition{{"in", 0}, {"in", 1}}) {
		t.Errorf("Partitions = %v", tps)
	}
}

func TestMergeKeepsTypesApart(t *testing.T) {
	accepted, _ := FromRecords(recs("in", 0, 1, 2, 5), AckAccept)
	rejected, _ := FromRecords(recs("in", 0, 3, 4), AckReject)
	released, _ := FromRecords(recs("in", 0, 6), AckAccept)
	got, err := accepted.Merge(rejected)
	if err != nil {
		t.Fatal(err)
	}
	got, err = got.Merge(released)
	if err != nil {
		t.Fatal(err)
	}
	want := ShareAcknowledgements{{"in", 0}: {{1, 2, AckAccept}, {3, 4, AckReject}, {5, 6, AckAccept}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestAcknowledgementsRefuseContradictions(t *testing.T) {
	accepted, _ := FromRecords(recs("in", 0, 1, 2, 3), AckAccept)
	released, _ := FromRecords(recs("in", 0, 3), AckRelease)
	if _, err := accepted.Merge(released); err == nil {
		t.Error("offset 3 accepted and released: merge did not fail")
	}
	if _, err := FromRecords(recs("in", 0, 1), AckType(4)); err == nil {
		t.Error("renew in a transaction: no error")
	}
	if _, err := FromRecords(recs("in", 0, 1), AckType(0)); err == nil {
		t.Error("gap in a transaction: no error")
	}
	bad := ShareAcknowledgements{{"in", 0}: {{5, 4, AckAccept}}}
	if _, err := bad.Merge(nil); err == nil {
		t.Error("batch 5..4: no error")
	}
}
