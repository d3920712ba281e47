package suites

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/judge"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestClientsSideBySide runs crash-after-commit in explicit mode once per
// client (--client go,java) on the embedded backend: two cells, the go one
// named as before clients were a dimension and the java one with ~java,
// the same seed (the same crash point drawn), plan.json naming both, the
// clients' commit latency compared, the summary's side-by-side section, and
// a re-check that reads it all back unchanged:
// go test -run TestClientsSideBySide ./suites/
func TestClientsSideBySide(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded cluster and the Java worker; skipped with -short")
	}
	requireJavaWorker(t)
	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Seed: 2402, Modes: []ctp.AckMode{ctp.Explicit},
		Clients: []string{workerset.ClientGo, workerset.ClientJava}}, Scenarios: []string{"crash-after-commit"}, Records: 300})
	if len(res.Runs) != 2 {
		t.Fatalf("%d cells, want one per client", len(res.Runs))
	}
	names := map[string]result.Cell{}
	for _, c := range res.Runs {
		names[c.Name()] = c
		if c.Verdict != verdict.Pass || c.Duplicated == 0 {
			t.Errorf("%s: %s (%s) duplicated %d, want PASS with the crash's duplicates", c.Name(), c.Verdict, c.Reason, c.Duplicated)
		}
	}
	goCell, okGo := names["crash-after-commit/explicit/embedded"]
	javaCell, okJava := names["crash-after-commit/explicit/embedded~java"]
	if !okGo || !okJava {
		t.Fatalf("cells %v, want the go cell under its old name and the java cell with ~java", names)
	}
	if goCell.Seed != javaCell.Seed || goCell.Client != "go" || javaCell.Client != "java" {
		t.Errorf("go %d/%q, java %d/%q: want one seed, each its client", goCell.Seed, goCell.Client, javaCell.Seed, javaCell.Client)
	}
	if len(res.ClientComparisons) != 1 {
		t.Fatalf("client comparisons %+v, want java against go", res.ClientComparisons)
	}
	if c := res.ClientComparisons[0]; c.Baseline != "go" || c.Candidate != "java" || c.N1 == 0 || c.N2 == 0 || c.Unit != judge.UnitCommits {
		t.Errorf("comparison %+v", c)
	} else {
		t.Logf("java against go: %s", c.Words)
	}
	sum, err := os.ReadFile(filepath.Join(res.Dir, "summary.md"))
	if err != nil || !strings.Contains(string(sum), "## Clients side by side") {
		t.Errorf("summary.md lacks the clients side by side (%v)", err)
	}
	sp, ok, err := judge.ReadPlan(res.Dir)
	if err != nil || !ok || len(sp.Cells) != 2 || sp.Cells[1].Client != "java" || sp.Cells[1].Name != javaCell.Name() {
		t.Errorf("plan %+v (%v): want both cells, java's named with its client", sp, err)
	}
	again, changed, err := judge.Recheck(res.Dir)
	if err != nil || len(changed) > 0 || len(again.ClientComparisons) != 1 || again.ClientComparisons[0].P != res.ClientComparisons[0].P {
		t.Errorf("re-check: %v, changed %v, comparisons %+v", err, changed, again.ClientComparisons)
	}
}
