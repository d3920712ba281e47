package suites

import (
	"encoding/json"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/judge"
	"os"
	"path/filepath"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestRecheckStoredRun: a stored run re-checks offline to the same verdict,
// and a run whose stored outputs lost a record re-checks to ANOMALY (lost).
func TestRecheckStoredRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 3}, Scenarios: []string{"steady"}, Records: 200})
	again, changed, err := judge.Recheck(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Verdict != verdict.Pass || len(changed) != 0 {
		t.Fatalf("recheck of a PASS run: %s, changed %v", again.Verdict, changed)
	}

	// Drop one committed output from the stored observation.
	path := filepath.Join(res.Dir, res.Runs[0].Dir, judge.ObservationFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var obs map[string]any
	if err := json.Unmarshal(b, &obs); err != nil {
		t.Fatal(err)
	}
	obs["outputs"] = obs["outputs"].([]any)[1:]
	b, _ = json.Marshal(obs)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tampered, changed, err := judge.Recheck(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	c := tampered.Runs[0]
	if tampered.Verdict != verdict.Anomaly || c.Lost != 1 || len(changed) != 1 {
		t.Fatalf("recheck after losing an output: verdict %s lost %d changed %v, want ANOMALY, 1, one change", tampered.Verdict, c.Lost, changed)
	}
	if tampered.ExitCode != verdict.ExitAnomaly {
		t.Errorf("exit code %d, want %d", tampered.ExitCode, verdict.ExitAnomaly)
	}
}
