package check_test

import (
	"testing"

	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// checkBenchCell is a transactional (native) cell of n records processed by
// eight workers in batches of 20, the way a chaos run records it. With
// dupEvery > 0, every dupEvery-th batch is processed twice (a crash after the
// commit), so examples are built too.
func checkBenchCell(n, dupEvery int) *checkCell {
	const batch, workers = 20, 8
	c := newCheckCell(ctp.Transactional, "native", n)
	ws := make([]*checkWorker, workers)
	for i := range ws {
		ws[i] = c.worker(ctp.WorkerName(i+1, 1))
	}
	for b := 0; b*batch < n; b++ {
		ids := checkSpan(b*batch, min(n, (b+1)*batch))
		w := ws[b%workers]
		if dupEvery > 0 && b%dupEvery == 0 {
			w.commitBatch(w.poll(1, ids...))
			w.fault("crash-after-commit", ctp.PointAfterCommit)
			w = ws[(b+1)%workers]
			w.process(2, ids...)
			continue
		}
		w.process(1, ids...)
	}
	return c
}

// BenchmarkCheck judges 100k records; it prints how long a cell's check
// takes and how many records per second that is (figures, not assertions).
func BenchmarkCheck(b *testing.B) {
	const n = 100_000
	for _, tc := range []struct {
		name     string
		dupEvery int
	}{{"clean", 0}, {"duplicates", 100}} {
		b.Run(tc.name, func(b *testing.B) {
			c := checkBenchCell(n, tc.dupEvery)
			allowed, err := scenarios.AllowedFor(ctp.Transactional, "steady")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var res check.Result
			for b.Loop() {
				res = check.Run(c.obs, allowed)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(len(c.obs.History)), "events")
			b.Logf("%s: %d events, verdict %s, counts %+v", tc.name, len(c.obs.History), res.Verdict, res.Counts)
		})
	}
}
