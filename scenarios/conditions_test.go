package scenarios

import (
	"testing"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestBoundToSpan: a row is asked for a spanning transaction only where
// the shape guarantees one could happen: more partitions than workers and
// a batch of two; where the fault takes a worker away, a surviving worker
// must still hold two (4 partitions over 3 workers: the crashed one may
// have been the one with two).
func TestBoundToSpan(t *testing.T) {
	for _, tc := range []struct {
		shape Shape
		takes bool
		want  bool
	}{
		{Shape{Workers: 3, Partitions: 4, Batch: 10}, false, true},
		{Shape{Workers: 3, Partitions: 4, Batch: 10}, true, false},
		{Shape{Workers: 3, Partitions: 6, Batch: 10}, true, true},
		{Shape{Workers: 2, Partitions: 4, Batch: 10}, true, true},
		{Shape{Workers: 1, Partitions: 2, Batch: 10}, true, false}, // the replacement gets them after the session timeout too
		{Shape{Workers: 3, Partitions: 3, Batch: 10}, false, false},
		{Shape{Workers: 1, Partitions: 4, Batch: 1}, false, false},
		{Shape{}, false, false},
	} {
		if got := boundToSpan(tc.shape, tc.takes); got != tc.want {
			t.Errorf("%+v, takes a worker %v: %v, want %v", tc.shape, tc.takes, got, tc.want)
		}
	}
	crash, _ := Lookup("crash-after-acks")
	steady, _ := Lookup("steady")
	if !crash.takesAWorker() || steady.takesAWorker() {
		t.Error("crash-after-acks takes a worker away, steady does not")
	}
	nightly := Conditions{Shape: Shape{Workers: 3, Partitions: 4, Batch: 10}}
	if ev := crash.EvidenceFor(ctp.Transactional, ctp.RealizationNative, nightly); len(ev) != len(crash.Evidence) {
		t.Errorf("crash-after-acks at 4 partitions and 3 workers asked %d pieces, want the row's %d", len(ev), len(crash.Evidence))
	}
	if ev := steady.EvidenceFor(ctp.Transactional, ctp.RealizationNative, nightly); len(ev) != len(steady.Evidence)+1 {
		t.Errorf("steady at 4 partitions and 3 workers asked %d pieces, want the row's %d and the spanning one", len(ev), len(steady.Evidence))
	}
}
