package check_test

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// Must fail: an output partition hung, in a cell whose visible counts are
// clean. Must pass: the same cell without it.
func TestHangingTransactionIsAnomaly(t *testing.T) {
	cell := func() *checkCell {
		c := newCheckCell(ctp.Explicit, "", 3)
		c.worker("w1.1").process(1, checkSpan(0, 3)...)
		return c
	}
	allowed := checkAllowed(t, ctp.Explicit, "steady")
	checkWant(t, check.Run(cell().obs, allowed), verdict.Pass, nil)

	c := cell()
	c.obs.HangingOutputs = []ctp.HangingPartition{{Partition: 2, LSO: 7, End: 9, HighWatermark: 9}}
	res := check.Run(c.obs, allowed)
	if res.Verdict != verdict.Anomaly || res.Anomalies[verdict.AnomalyHangingTransaction].Count != 1 {
		t.Fatalf("verdict %s anomalies %v, want ANOMALY with hanging-transaction 1", res.Verdict, res.Anomalies)
	}
	if ex := res.Anomalies[verdict.AnomalyHangingTransaction].Examples[0]; !strings.Contains(ex.Summary, "output partition 2") ||
		!strings.Contains(ex.Summary, "offset 7 of 9") {
		t.Errorf("example %+v", ex)
	}
}
