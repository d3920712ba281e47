package suites

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestWorkerRowsFireInExtremeShapes runs the worker-fault rows in shapes at
// the edges of what a nightly job may pick (one partition shared by six
// workers with batches of 100; one worker on eight partitions with batches of
// 1) and asserts that every armed fault fired: a row that misses its moment
// in some shape tests nothing there (issue 10).
func TestWorkerRowsFireInExtremeShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an embedded cluster per shape; skipped with -short")
	}
	rows := []string{"crash-before-begin", "crash-after-send", "graceful-stop-mid-txn", "crash-after-commit", "zombie-fenced", "explicit-abort"}
	shapes := []struct {
		partitions, batch int32
		workers, records  int
	}{
		{partitions: 1, workers: 6, batch: 100, records: 300},
		{partitions: 8, workers: 1, batch: 1, records: 300},
	}
	for _, sh := range shapes {
		name := fmt.Sprintf("p%d-w%d-b%d-r%d", sh.partitions, sh.workers, sh.batch, sh.records)
		t.Run(name, func(t *testing.T) {
			res, err := Run(context.Background(), Options{
				Common:    harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 10, Out: filepath.Join(t.TempDir(), name)},
				Scenarios: rows, Records: sh.records, Workers: sh.workers, Partitions: sh.partitions, MaxRecords: sh.batch,
			})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			for _, c := range res.Runs {
				t.Logf("%s: %s fired=%v %s", c.Name(), c.Verdict, c.Fault.Fired, c.Reason)
				if !c.Fault.Fired {
					t.Errorf("%s in shape %s: the fault never fired (%s %s)", c.Scenario, name, c.Verdict, c.Reason)
				}
				if c.Verdict == verdict.Anomaly || c.Verdict == verdict.HarnessError {
					t.Errorf("%s in shape %s: %s (%s)", c.Scenario, name, c.Verdict, c.Reason)
				}
			}
		})
	}
}
