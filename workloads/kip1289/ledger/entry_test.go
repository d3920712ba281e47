package ledger

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestEntryRoundTrip(t *testing.T) {
	e := Entry{Worker: "w2.1", Seq: 17, Records: []RecordID{{"in/with/slashes", 3, 42}, {"in", 0, 0}}}
	r := e.Record("ledger", 0)
	if string(r.Key) != "w2.1/17" || string(r.Value) != "in/with/slashes/3/42\nin/0/0" {
		t.Fatalf("encoded %q = %q", r.Key, r.Value)
	}
	got, err := DecodeEntry(r)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, e) {
		t.Errorf("got %+v, want %+v", got, e)
	}
}

func TestDecodeEntryRejectsForeignRecords(t *testing.T) {
	for _, r := range []*kgo.Record{
		{Key: []byte("no-seq"), Value: []byte("in/0/1")},
		{Key: []byte("w1/x"), Value: []byte("in/0/1")},
		{Key: []byte("w1/1"), Value: []byte("in/0")},
		{Key: []byte("w1/1"), Value: []byte("in/0/1\n\n")},
	} {
		if e, err := DecodeEntry(r); err == nil {
			t.Errorf("%q=%q decoded as %+v", r.Key, r.Value, e)
		}
	}
}
