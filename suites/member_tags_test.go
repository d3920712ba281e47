package suites

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// skipWithoutRefBroker skips, saying why, when the reference broker is not
// built (`make refbroker` builds bin/sharechaos-refbroker).
func skipWithoutRefBroker(t *testing.T) {
	t.Helper()
	c := harness.Common{Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: "native"}.WithDefaults()
	if _, err := c.ChooseEmbeddedBroker(); err != nil {
		t.Skipf("the reference broker is not built, so KIP-1289 cannot run natively here: %v", err)
	}
}

// TestNativeMemberTagsOmittedShowsTheHazard keeps docs/FINDINGS.md 2 found:
// in lock-expiry-stale-acks the stalled worker's acks reach the reference
// broker while another member holds its records. With the proposed member
// tags the broker refuses them (PASS, exactly once); without them, as
// KIP-1289 is written, it accepts them and the stalled worker's transaction
// commits the acks of records it no longer held: ANOMALY
// acked-by-non-holder.
func TestNativeMemberTagsOmittedShowsTheHazard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded reference broker; skipped with -short")
	}
	skipWithoutRefBroker(t)
	run := func(t *testing.T, tags string) result.Cell {
		res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Transactional},
			TxnAcks: "native", PendingLock: harness.PendingLockExpire, MemberTags: tags, Seed: 11},
			Scenarios: []string{"lock-expiry-stale-acks"}, Records: 300})
		if len(res.Runs) != 1 {
			t.Fatalf("cells %+v, want one", res.Runs)
		}
		c := res.Runs[0]
		t.Logf("%s: %s duplicated=%d lost=%d: %s", c.Name(), c.Verdict, c.Duplicated, c.Lost, c.Reason)
		if !hasNote(c, "TxnShareAcknowledge member tags: "+tags) {
			t.Errorf("notes %v do not name the member tags", c.Notes)
		}
		return c
	}
	// The two runs are independent (each its own cluster): side by side.
	t.Run(ctp.MemberTagsSend, func(t *testing.T) {
		t.Parallel()
		c := run(t, ctp.MemberTagsSend)
		if c.Verdict != verdict.Pass || c.Lost != 0 || c.Duplicated != 0 {
			t.Errorf("%s (%s) lost=%d duplicated=%d, want PASS, exactly once", c.Verdict, c.Reason, c.Lost, c.Duplicated)
		}
	})
	t.Run(ctp.MemberTagsOmit, func(t *testing.T) {
		t.Parallel()
		c := run(t, ctp.MemberTagsOmit)
		if c.Verdict != verdict.Anomaly {
			t.Fatalf("%s (%s), want ANOMALY", c.Verdict, c.Reason)
		}
		f := c.Anomalies[verdict.AnomalyAckedByNonHolder]
		if f.Count == 0 || len(f.Examples) == 0 {
			t.Fatalf("anomalies %v do not name %s", c.Anomalies, verdict.AnomalyAckedByNonHolder)
		}
		if ex := f.Examples[0]; !strings.Contains(ex.Summary, "no longer held the record") || len(ex.Steps) == 0 {
			t.Errorf("example %+v, want the stale ack and its steps", ex)
		}
	})
}
