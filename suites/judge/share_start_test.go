package judge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// storeRun writes a run directory by hand: result.json with one PASS cell of
// obs (broker-kill, explicit), its observation.json as given, and its
// histories, one file per worker.
func storeRun(t *testing.T, obs ctp.Observation, observationJSON []byte) string {
	t.Helper()
	dir := t.TempDir()
	cdir := filepath.Join(dir, "cells", "c1")
	if err := os.MkdirAll(filepath.Join(cdir, "histories"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range obs.History {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		files[e.Worker] = append(append(files[e.Worker], line...), '\n')
	}
	for w, b := range files {
		if err := os.WriteFile(filepath.Join(cdir, "histories", w+".jsonl"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(cdir, ObservationFile), observationJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	res := result.Result{Verdict: verdict.Pass, ExitCode: verdict.ExitPass, Backend: "embedded", Runs: []result.Cell{{
		Scenario: "broker-kill", Mode: string(ctp.Explicit), Backend: "embedded", Repeat: 1, Verdict: verdict.Pass,
		Counts: verdict.Counts{Input: 10, Processed: 10}, Dir: "cells/c1", Anomalies: map[string]verdict.Found{}}}}
	if err := result.WriteResultJSON(dir, res); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A re-check of an old run, whose observation.json has only the drain's
// share_start, still judges it (PASS, unchanged) and says in a note that
// Kafka's own start offsets are unknown; a new one lists where the drain's
// differs from Kafka's, with the rule.
func TestRecheckShareStartReported(t *testing.T) {
	obs := newLoadCell(true)
	old, err := json.Marshal(map[string]any{
		"mode": obs.Mode, "realization": "", "input_topic": obs.InputTopic, "inputs": obs.Inputs, "outputs": obs.Outputs,
		"share_start": obs.ShareStart, "input_end": obs.InputEnd, "delivery_limit": obs.DeliveryLimit})
	if err != nil {
		t.Fatal(err)
	}
	res, changed, err := Recheck(storeRun(t, obs, old))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Runs[0]
	if res.Verdict != verdict.Pass || len(changed) != 0 || !slices.Contains(c.Notes, shareStartUnknownNote) || c.ShareStartAdjusted != nil {
		t.Errorf("old observation: verdict %s, changed %v, notes %q, adjusted %v; want PASS, unchanged, the note, none",
			res.Verdict, changed, c.Notes, c.ShareStartAdjusted)
	}

	// Kafka reported 8 of 10 with lag 0 (docs/FINDINGS.md 4); the drain read 10.
	obs.ShareStartReported = map[int32]int64{0: 8}
	obs.ShareStartRule = map[int32]string{0: ctp.RuleLagZeroIsDone}
	b, err := json.Marshal(storedObservation{Mode: obs.Mode, InputTopic: obs.InputTopic, Inputs: obs.Inputs, Outputs: obs.Outputs,
		ShareStart: obs.ShareStart, ShareStartReported: obs.ShareStartReported, ShareStartRule: obs.ShareStartRule,
		InputEnd: obs.InputEnd, DeliveryLimit: obs.DeliveryLimit})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err = Recheck(storeRun(t, obs, b))
	if err != nil {
		t.Fatal(err)
	}
	c = res.Runs[0]
	want := []result.ShareStartAdjusted{{Partition: 0, Reported: 8, Judged: 10, Rule: ctp.RuleLagZeroIsDone}}
	if res.Verdict != verdict.Pass || slices.Contains(c.Notes, shareStartUnknownNote) || !reflect.DeepEqual(c.ShareStartAdjusted, want) {
		t.Errorf("new observation: verdict %s, notes %q, adjusted %+v; want PASS, no note, %+v", res.Verdict, c.Notes, c.ShareStartAdjusted, want)
	}
}
