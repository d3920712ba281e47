package scenarios

import (
	"testing"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// A row whose shape the cell lacks is N/A before it runs, naming what it
// needs and what the cell has; one the cell meets, or whose shape is
// unknown, is not.
func TestShapePreconditions(t *testing.T) {
	oneWorker := Shape{Workers: 1, Partitions: 1, Batch: 1, Brokers: 3}
	for _, tc := range []struct {
		row   string
		shape Shape
		want  string
	}{
		{"lock-expiry-race", oneWorker, "needs at least 2 workers (another worker must be there to acquire the records while the armed one holds them); this cell has 1 worker"},
		{"lock-expiry-before-commit", oneWorker, "needs at least 2 workers (another worker must be there to acquire the records while the armed one holds them); this cell has 1 worker"},
		{"lock-expiry-race", Shape{Workers: 3, Partitions: 4, Batch: 10, Brokers: 3}, ""},
		{"partial-produce-failure", oneWorker, "needs at least 2 partitions, a batch of 2 (a partial produce failure needs a batch with outputs on another output partition, led by another broker than the cut one); this cell has 1 partition, a batch of 1"},
		{"partial-produce-failure", Shape{Workers: 1, Partitions: 4, Batch: 10, Brokers: 1}, "needs at least 2 brokers (a partial produce failure needs a batch with outputs on another output partition, led by another broker than the cut one); this cell has 1 broker"},
		{"data-leader-kill", Shape{Brokers: 1}, "needs at least 2 brokers (the fault moves leadership to another broker); this cell has 1 broker"},
		{"crash-after-commit", oneWorker, ""},
		{"zombie-fenced", oneWorker, ""},
		{"broker-kill", Shape{Brokers: 1}, ""},
		{"lock-expiry-race", Shape{}, ""}, // unknown: not judged
	} {
		row, _ := Lookup(tc.row)
		if got := row.NAReason(ctp.Explicit, "", nil, tc.shape); got != tc.want {
			t.Errorf("%s on %+v: N/A %q, want %q", tc.row, tc.shape, got, tc.want)
		}
	}
}

// A row's own load replaces the run's in the shape its cells run with: the
// lock-expiry rows run on one shared input partition whatever the run has.
func TestLoadOverTheRunsShape(t *testing.T) {
	row, _ := Lookup("lock-expiry-race")
	if got := row.Load.Over(Shape{Workers: 3, Partitions: 4, Batch: 10, Brokers: 3}); got != (Shape{Workers: 3, Partitions: 1, Batch: 10, Brokers: 3}) {
		t.Errorf("shape %+v", got)
	}
}

// Every shape a row needs says why, for its N/A reason.
func TestEveryShapeNeedSaysWhy(t *testing.T) {
	for _, s := range All() {
		if s.Requires.Shape != (Shape{}) && s.Requires.Why == "" {
			t.Errorf("%s needs %+v and does not say why", s.Name, s.Requires.Shape)
		}
	}
}
