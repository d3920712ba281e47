package check_test

import (
	"strconv"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// offsetsCell is a steady explicit cell whose orchestrator read the share
// offsets of in/0 at the given (start, lag, end) points.
func offsetsCell(reads ...[3]int64) *checkCell {
	c := newCheckCell(ctp.Explicit, "", 5)
	w1, orch := c.worker("w1.1"), c.worker("orchestrator")
	for _, r := range reads {
		orch.add(history.Event{Type: history.OK, F: history.FShareOffsets, Attrs: map[string]string{
			"topic": "in", "partition": "0", "start": strconv.FormatInt(r[0], 10), "lag": strconv.FormatInt(r[1], 10), "end": strconv.FormatInt(r[2], 10)}})
	}
	w1.process(1, checkSpan(0, 5)...)
	return c
}

// TestCheckShareOffsetsRegressed: a share start offset that goes back, or a
// lag that rises at one start offset by more than the input added, is
// share-offsets-regressed (the stale state writes of apache/kafka #23074
// and #23112), in a row that allows nothing else; progress, new input and a
// lag the broker did not report are not.
func TestCheckShareOffsetsRegressed(t *testing.T) {
	allowed := checkAllowed(t, ctp.Explicit, "steady")
	for _, tc := range []struct {
		name  string
		reads [][3]int64
		cause string
	}{
		{"start-went-back", [][3]int64{{610, 20, 1000}, {600, 20, 1000}}, check.CauseStartWentBack},
		{"lag-rose", [][3]int64{{600, 20, 1000}, {600, 30, 1000}}, check.CauseLagRose},
		{"lag-rose-past-the-input-added", [][3]int64{{600, 20, 1000}, {600, 40, 1010}}, check.CauseLagRose},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := check.Run(offsetsCell(tc.reads...).obs, allowed)
			if res.Verdict != verdict.Anomaly || res.Anomalies[verdict.AnomalyShareOffsetsRegressed].Count != 1 {
				t.Fatalf("verdict %s, anomalies %v: want share-offsets-regressed x1", res.Verdict, res.Anomalies)
			}
			checkCause(t, res, verdict.AnomalyShareOffsetsRegressed, tc.cause, 1, "in/0")
		})
	}
	for _, tc := range []struct {
		name  string
		reads [][3]int64
	}{
		{"progress", [][3]int64{{600, 20, 1000}, {610, 15, 1000}, {640, 0, 1000}}},
		{"lag-rose-with-new-input", [][3]int64{{600, 20, 1000}, {600, 28, 1010}}},
		{"lag-unknown", [][3]int64{{600, -1, 1000}, {600, 30, 1000}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkWant(t, check.Run(offsetsCell(tc.reads...).obs, allowed), verdict.Pass, nil)
		})
	}
}
