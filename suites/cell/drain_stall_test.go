package cell

import (
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check/large"
	"slices"
	"testing"
	"time"
)

func TestStallWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	start := map[int32]int64{0: 250, 1: 120, 2: 250}
	end := map[int32]int64{0: 250, 1: 250, 2: 250}
	noFault := time.Unix(0, 0)

	w := newStallWatch(15 * time.Second) // after 25 s
	w.since = t0
	if ps := w.stuck(at(1), 620, noFault, start, end); ps != nil {
		t.Fatalf("progress moved: want no nudge, got %v", ps)
	}
	if ps := w.stuck(at(25), 620, noFault, start, end); ps != nil {
		t.Fatalf("quiet for 24 s: want no nudge, got %v", ps)
	}
	// A fault that acted resets the quiet period.
	if ps := w.stuck(at(26), 620, at(20), start, end); ps != nil {
		t.Fatalf("a fault acted 6 s ago: want no nudge, got %v", ps)
	}
	if ps := w.stuck(at(46), 620, at(20), start, end); !slices.Equal(ps, []int32{1}) {
		t.Fatalf("quiet for 26 s: want a nudge of p1 only, got %v", ps)
	}
	w.nudges[1]++
	if ps := w.stuck(at(50), 620, at(20), start, end); ps != nil {
		t.Fatalf("just nudged: want no second nudge before another quiet period, got %v", ps)
	}
	if ps := w.stuck(at(72), 620, at(20), start, end); !slices.Equal(ps, []int32{1}) {
		t.Fatalf("quiet again: want p1 nudged again, got %v", ps)
	}
	w.nudges[1] = nudgeLimit
	if ps := w.stuck(at(200), 620, at(20), start, end); ps != nil {
		t.Fatalf("p1 nudged %d times: want no more, got %v", nudgeLimit, ps)
	}

	// A partition whose start offset is unknown is not nudged.
	w = newStallWatch(15 * time.Second)
	w.since = t0
	if ps := w.stuck(at(30), 0, noFault, map[int32]int64{}, end); ps != nil {
		t.Fatalf("start offsets unknown: want no nudge, got %v", ps)
	}
}

// A nudge is an ordinary input to every checker, the large one included.
func TestNudgeRecordIsAnInput(t *testing.T) {
	seen := map[string]bool{}
	for p := int32(0); p < 64; p++ {
		for k := 0; k < nudgeLimit; k++ {
			r := ctp.NudgeRecord(p, k)
			id := string(r.Key)
			if r.Partition != p || string(r.Value) != ctp.Payload(id) {
				t.Fatalf("nudge %d of p%d: partition %d, value %q", k, p, r.Partition, r.Value)
			}
			if large.ParseID(id) == ^uint32(0) {
				t.Fatalf("nudge id %s is not an input id to the large checker", id)
			}
			if seen[id] {
				t.Fatalf("nudge id %s twice", id)
			}
			seen[id] = true
		}
	}
}
