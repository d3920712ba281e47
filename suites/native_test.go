package suites

import (
	"github.com/sharechaos/sharechaos/result"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// requireRefBroker fails when the reference broker is not built: `make test`
// builds it first (make refbroker).
func requireRefBroker(t *testing.T) {
	t.Helper()
	c := harness.Common{Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: "native"}.WithDefaults()
	if _, err := c.ChooseEmbeddedBroker(); err != nil {
		t.Fatal(err)
	}
}

// TestNativeHold runs KIP-1289 natively on the reference broker under
// `hold`: the acks only ever go into the transaction, and the smoke faults
// leave nothing lost and nothing duplicated.
func TestNativeHold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded reference broker; skipped with -short")
	}
	requireRefBroker(t)
	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Transactional},
		TxnAcks: "native", PendingLock: harness.PendingLockHold, Seed: 5},
		Scenarios: []string{"steady", "crash-after-acks", "crash-after-commit"}, Records: 300})
	if !strings.Contains(res.BackendWhy, "refbroker") || !strings.Contains(res.BackendWhy, "hold") {
		t.Errorf("the report does not name the broker and its policy: %q", res.BackendWhy)
	}
	for _, c := range res.Runs {
		if c.Realization != ctp.RealizationNative {
			t.Errorf("%s: realization %q, want native", c.Name(), c.Realization)
		}
		if !hasNote(c, "consumer: "+ctp.ConsumerSharechaos) {
			t.Errorf("%s: notes %v do not name our consumer", c.Name(), c.Notes)
		}
	}
	checkCells(t, res, map[string]map[ctp.AckMode]expectation{
		"steady":             {ctp.Transactional: {verdict: verdict.Pass}},
		"crash-after-acks":   {ctp.Transactional: {verdict: verdict.Pass}},
		"crash-after-commit": {ctp.Transactional: {verdict: verdict.Pass}},
	})
}

// TestNativeExpireShowsTheHazard: under `expire` (the KIP as written) a
// transaction whose acks are pending past the lock commits after another
// worker acquired the records: the checker names the hazard.
func TestNativeExpireShowsTheHazard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded reference broker; skipped with -short")
	}
	requireRefBroker(t)
	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Transactional},
		TxnAcks: "native", PendingLock: harness.PendingLockExpire, Seed: 5},
		Scenarios: []string{"lock-expiry-before-commit"}, Records: 300})
	if len(res.Runs) != 1 {
		t.Fatalf("cells %+v, want one", res.Runs)
	}
	c := res.Runs[0]
	t.Logf("%s: %s duplicated=%d lost=%d: %s", c.Name(), c.Verdict, c.Duplicated, c.Lost, c.Reason)
	if c.Verdict != verdict.Anomaly {
		t.Fatalf("verdict %s (%s), want ANOMALY", c.Verdict, c.Reason)
	}
	if c.Anomalies[verdict.AnomalyRedeliveredWhilePending].Count == 0 {
		t.Errorf("%s does not name %s", c.Reason, verdict.AnomalyRedeliveredWhilePending)
	}
}

func hasNote(c result.Cell, want string) bool {
	for _, n := range c.Notes {
		if strings.Contains(n, want) {
			return true
		}
	}
	return false
}
