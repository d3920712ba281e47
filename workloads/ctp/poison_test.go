package ctp

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestPoison(t *testing.T) {
	p := &Poison{Every: 100, Offset: 7}
	for id, want := range map[string]bool{"r-000007": true, "r-000107": true, "r-000008": false, "r-000100": false,
		"nudge-000007": false, "r-x": false} {
		if got := p.Is(id); got != want {
			t.Errorf("Is(%s) = %v", id, got)
		}
	}
	var none *Poison
	if none.Is("r-000007") {
		t.Error("a nil rule poisons")
	}
	d := DLQRecordOf(deadLetter())
	if d.Topic != "in" || d.Partition != 3 || d.Offset != 42 || d.DeliveryCount != "10" || d.Key != "r-000042" {
		t.Errorf("DLQRecordOf = %+v", d)
	}
}

func deadLetter() *kgo.Record {
	return &kgo.Record{Key: []byte("r-000042"), Offset: 5, Headers: []kgo.RecordHeader{
		{Key: HeaderDLQTopic, Value: []byte("in")}, {Key: HeaderDLQPartition, Value: []byte("3")},
		{Key: HeaderDLQOffset, Value: []byte("42")}, {Key: HeaderDLQDeliveryCount, Value: []byte("10")}}}
}
