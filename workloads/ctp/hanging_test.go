package ctp

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestHangingOf: a stalled read_committed read-back is a hanging
// transaction only when every partition short of its end has its data and
// a stuck stable offset; any other stall (data missing, read_uncommitted)
// stays an error of its own.
func TestHangingOf(t *testing.T) {
	want := map[int32]int64{0: 100, 1: 50}
	seen := func(lso1, hwm1 int64) map[int32]kgo.FetchPartition {
		return map[int32]kgo.FetchPartition{
			0: {Partition: 0, LastStableOffset: 100, HighWatermark: 100},
			1: {Partition: 1, LastStableOffset: lso1, HighWatermark: hwm1},
		}
	}
	stable := map[int32]bool{0: true}
	h := hangingOf("out", want, stable, seen(30, 50), true)
	if h == nil || len(h.Partitions) != 1 || h.Partitions[0] != (HangingPartition{Partition: 1, LSO: 30, End: 50, HighWatermark: 50}) {
		t.Fatalf("hanging %+v, want partition 1 stable to 30 of 50", h)
	}
	if got := h.Error(); got != "read topic out: hanging transaction: partition 1 stable to 30 of 50, nothing read for 1m0s" {
		t.Errorf("error %q", got)
	}
	if h := hangingOf("out", want, stable, seen(30, 40), true); h != nil {
		t.Errorf("data missing (high watermark 40 of 50) called hanging: %+v", h)
	}
	if h := hangingOf("out", want, stable, seen(30, 50), false); h != nil {
		t.Errorf("read_uncommitted stall called hanging: %+v", h)
	}
	if h := hangingOf("out", want, map[int32]bool{0: true}, map[int32]kgo.FetchPartition{0: {}}, true); h != nil {
		t.Errorf("a partition never fetched called hanging: %+v", h)
	}
}
