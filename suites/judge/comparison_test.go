package judge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
)

// writeCommits writes a cell directory whose history has one commit of
// each duration (ms).
func writeCommits(t *testing.T, dir string, ms ...int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "histories"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec, err := history.Create(filepath.Join(dir, "histories", "w1.1.jsonl"), "w1.1")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if err := rec.Record(history.Event{Type: history.OK, F: history.FCommit, Txn: int64(i + 1), DurNS: m * 1e6}); err != nil {
			t.Fatal(err)
		}
	}
	_ = rec.Close()
}

// TestCompareVersions: a release twice as slow on every commit is told
// apart; equal releases are not; a mode ran on one release only, an N/A
// cell and a run without releases give no row.
func TestCompareVersions(t *testing.T) {
	run := t.TempDir()
	slow, same := make([]int64, 40), make([]int64, 40)
	base := make([]int64, 40)
	for i := range base {
		base[i], slow[i], same[i] = int64(10+i), int64(20+2*i), int64(10+i)
	}
	cells := []result.Cell{
		{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: "4.2.2", Repeat: 1, Dir: "a", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: "4.4.0", Repeat: 1, Dir: "b", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "transactional", Realization: "ledger", Backend: "docker", KafkaVersion: "4.2.2", Repeat: 1, Dir: "c", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "transactional", Realization: "ledger", Backend: "docker", KafkaVersion: "4.4.0", Repeat: 1, Dir: "d", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "implicit", Backend: "docker", KafkaVersion: "4.2.2", Repeat: 1, Dir: "e", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "implicit", Backend: "docker", KafkaVersion: "4.4.0", Repeat: 1, Verdict: verdict.NA},
	}
	for d, ms := range map[string][]int64{"a": base, "b": slow, "c": base, "d": same, "e": base} {
		writeCommits(t, filepath.Join(run, d), ms...)
	}
	got := CompareAlong(run, cells, result.Releases)
	if len(got) != 2 {
		t.Fatalf("got %d rows, want 2 (explicit, transactional/ledger): %+v", len(got), got)
	}
	if g := got[0]; g.Mode != "explicit" || g.Baseline != "4.2.2" || g.Candidate != "4.4.0" || !g.Significant || g.Ratio < 1.9 || g.N1 != 40 {
		t.Errorf("explicit: %+v, want 4.4.0 significantly slower, ratio ~2, n 40", g)
	}
	if g := got[1]; g.Mode != "transactional/ledger" || g.Significant || g.Ratio != 1 {
		t.Errorf("transactional/ledger: %+v, want no significant difference", g)
	}
	for i := range cells {
		cells[i].KafkaVersion = ""
	}
	if got := CompareAlong(run, cells, result.Releases); len(got) != 0 {
		t.Errorf("a run without releases compared: %+v", got)
	}
}

// TestPlanCarriesVersion: a planned cell's release survives plan.json,
// and a re-check of a killed run names the unfinished cell with it.
func TestPlanCarriesVersion(t *testing.T) {
	dir := t.TempDir()
	p := Plan{Backend: "docker", Cells: []PlannedCell{
		{Name: "steady/explicit/docker@4.2.2", Scenario: "steady", Mode: "explicit", KafkaVersion: "4.2.2", Repeat: 1, Seed: 5},
		{Name: "steady/explicit/docker@4.4.0", Scenario: "steady", Mode: "explicit", KafkaVersion: "4.4.0", Repeat: 1, Seed: 5},
	}}
	if err := WritePlan(dir, p); err != nil {
		t.Fatal(err)
	}
	sp, ok, err := ReadPlan(dir)
	if err != nil || !ok {
		t.Fatalf("read plan: %v %v", ok, err)
	}
	res := result.Result{Runs: []result.Cell{{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: "4.2.2", Repeat: 1, Verdict: verdict.Pass}}}
	res, names := AddUnfinished(res, sp)
	if len(names) != 1 || names[0] != "steady/explicit/docker@4.4.0 (repeat 1)" {
		t.Fatalf("unfinished %v, want the 4.4.0 cell only", names)
	}
	for _, c := range res.Runs {
		if c.Verdict == verdict.Unknown && c.KafkaVersion != "4.4.0" {
			t.Errorf("unfinished cell lost its release: %+v", c)
		}
	}
}

// TestCompareVersionsRepeats: with repeats each repeat's commit p50 is one
// value (the bench's unit), read from the cells, not their histories.
func TestCompareVersionsRepeats(t *testing.T) {
	var cells []result.Cell
	for rep := 1; rep <= 5; rep++ {
		for _, v := range []struct {
			release string
			p50     float64
		}{{"4.2.2", 10 + float64(rep)}, {"4.4.0", 30 + float64(rep)}} {
			cells = append(cells, result.Cell{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: v.release,
				Repeat: rep, Dir: "x", Verdict: verdict.Pass, CommitP50Ms: v.p50})
		}
	}
	got := CompareAlong(t.TempDir(), cells, result.Releases)
	if len(got) != 1 {
		t.Fatalf("rows %+v", got)
	}
	if g := got[0]; g.Unit != UnitRepeats || g.N1 != 5 || g.N2 != 5 || !g.Significant || g.BaselineMedianMs != 13 || g.CandidateMedianMs != 33 {
		t.Errorf("%+v, want 5+5 repeats, significant, medians 13 and 33", g)
	}
}

// TestCompareClients: each release's java cells against its go cells, the
// release named on the row; a java cell slower on every commit is told
// apart, an equal one is not; a cell without a client is go's (runs from
// before clients); a run of one client has no row.
func TestCompareClients(t *testing.T) {
	run := t.TempDir()
	base, slow := make([]int64, 40), make([]int64, 40)
	for i := range base {
		base[i], slow[i] = int64(10+i), int64(30+3*i)
	}
	cells := []result.Cell{
		{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: "4.2.2", Repeat: 1, Dir: "a", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: "4.2.2", Client: "java", Repeat: 1, Dir: "b", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: "4.4.0", Client: "go", Repeat: 1, Dir: "c", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: "4.4.0", Client: "java", Repeat: 1, Dir: "d", Verdict: verdict.Pass},
		{Scenario: "steady", Mode: "implicit", Backend: "docker", KafkaVersion: "4.4.0", Client: "java", Repeat: 1, Verdict: verdict.NA},
	}
	for d, ms := range map[string][]int64{"a": base, "b": slow, "c": base, "d": base} {
		writeCommits(t, filepath.Join(run, d), ms...)
	}
	got := CompareAlong(run, cells, result.Clients)
	if len(got) != 2 {
		t.Fatalf("got %d rows, want 2 (one per release): %+v", len(got), got)
	}
	if g := got[0]; g.KafkaVersion != "4.2.2" || g.Baseline != "go" || g.Candidate != "java" || !g.Significant || g.Ratio < 2.5 || g.Client != "" {
		t.Errorf("4.2.2: %+v, want java significantly slower than go on 4.2.2", g)
	}
	if g := got[1]; g.KafkaVersion != "4.4.0" || g.Significant || g.Ratio != 1 {
		t.Errorf("4.4.0: %+v, want no significant difference", g)
	}
	// Releases are compared per client: go's 4.4.0 against go's 4.2.2 and
	// java's against java's, never java's against go's.
	byRelease := CompareAlong(run, cells, result.Releases)
	if len(byRelease) != 2 || byRelease[0].Client != "" || byRelease[1].Client != "java" || !byRelease[1].Significant {
		t.Errorf("releases per client: %+v, want go's rows unchanged and java's 4.4.0 faster than its 4.2.2", byRelease)
	}
	for i := range cells {
		cells[i].Client = ""
	}
	if got := CompareAlong(run, cells, result.Clients); len(got) != 0 {
		t.Errorf("a run of one client compared: %+v", got)
	}
}

// TestPlanCarriesClient: a planned cell's client survives plan.json, and a
// re-check of a killed run names the unfinished java cell with it.
func TestPlanCarriesClient(t *testing.T) {
	dir := t.TempDir()
	p := Plan{Backend: "embedded", Cells: []PlannedCell{
		{Name: "steady/explicit/embedded", Scenario: "steady", Mode: "explicit", Client: "go", Repeat: 1, Seed: 5},
		{Name: "steady/explicit/embedded~java", Scenario: "steady", Mode: "explicit", Client: "java", Repeat: 1, Seed: 5},
	}}
	if err := WritePlan(dir, p); err != nil {
		t.Fatal(err)
	}
	sp, ok, err := ReadPlan(dir)
	if err != nil || !ok {
		t.Fatalf("read plan: %v %v", ok, err)
	}
	res := result.Result{Runs: []result.Cell{{Scenario: "steady", Mode: "explicit", Backend: "embedded", Client: "go", Repeat: 1, Verdict: verdict.Pass}}}
	res, names := AddUnfinished(res, sp)
	if len(names) != 1 || names[0] != "steady/explicit/embedded~java (repeat 1)" {
		t.Fatalf("unfinished %v, want the java cell only", names)
	}
	if c := res.Runs[len(res.Runs)-1]; c.Client != "java" || c.Verdict != verdict.Unknown {
		t.Errorf("unfinished cell %+v, want java's, UNKNOWN", c)
	}
}
