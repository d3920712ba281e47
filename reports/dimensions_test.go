package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
)

// TestSummaryReleasesSideBySide: a run over releases has a column per
// release, the comparison rows and the release in the cell table and
// names; a run of one release has none of it.
func TestSummaryReleasesSideBySide(t *testing.T) {
	cell := func(v string, vd verdict.Verdict, p50 float64) result.Cell {
		return result.Cell{Scenario: "steady", Mode: "explicit", Backend: "docker", KafkaVersion: v, Repeat: 1,
			Verdict: vd, CommitP50Ms: p50, Anomalies: map[string]verdict.Found{}}
	}
	r := result.Result{Verdict: verdict.Pass, Runs: []result.Cell{cell("4.2.2", verdict.Pass, 12), cell("4.4.0", verdict.Pass, 15)},
		VersionComparisons: []result.Comparison{{Scenario: "steady", Mode: "explicit", Baseline: "4.2.2", Candidate: "4.4.0",
			BaselineMedianMs: 12, CandidateMedianMs: 15, Ratio: 1.25, N1: 50, N2: 50, Significant: true, Unit: "commits", Words: "4.4.0 slower than 4.2.2: 1.25x (p<0.001)"}}}
	var b bytes.Buffer
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"## Kafka releases side by side", "| steady | explicit | PASS (commit p50 12 ms) | PASS (commit p50 15 ms) |",
		"| steady | explicit | 4.4.0 | 4.2.2 | 15 | 12 | 1.25 | 50+50 | commits | 4.4.0 slower than 4.2.2: 1.25x (p<0.001) |", "| kafka |"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	r.Runs, r.VersionComparisons = r.Runs[:1], nil
	r.Runs[0].KafkaVersion = ""
	b.Reset()
	_ = WriteSummary(&b, r)
	if strings.Contains(b.String(), "releases side by side") || strings.Contains(b.String(), "| kafka |") {
		t.Errorf("a run of one release shows releases:\n%s", b.String())
	}
	if n := r.Runs[0].Name(); n != "steady/explicit/docker" {
		t.Errorf("name without a release = %q", n)
	}
	if n := cell("4.4.0", verdict.Pass, 0).Name(); n != "steady/explicit/docker@4.4.0" {
		t.Errorf("name with a release = %q", n)
	}
}

// TestSummaryClientsSideBySide: a run over two clients has a client column,
// a column per client side by side and the comparison rows; a run of the
// default client alone has none of it, and its names are unchanged.
func TestSummaryClientsSideBySide(t *testing.T) {
	cell := func(client string, p50 float64) result.Cell {
		return result.Cell{Scenario: "steady", Mode: "explicit", Backend: "embedded", Client: client, Repeat: 1,
			Verdict: verdict.Pass, CommitP50Ms: p50, Anomalies: map[string]verdict.Found{}}
	}
	r := result.Result{Verdict: verdict.Pass, Runs: []result.Cell{cell("go", 4), cell("java", 9)},
		ClientComparisons: []result.Comparison{{Scenario: "steady", Mode: "explicit", Baseline: "go", Candidate: "java",
			BaselineMedianMs: 4, CandidateMedianMs: 9, Ratio: 2.25, N1: 60, N2: 55, Significant: true, Unit: "commits", Words: "java slower than go: 2.25x (p<0.001)"}}}
	var b bytes.Buffer
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"## Clients side by side", "| scenario | mode | go | java |", "| steady | explicit | PASS (commit p50 4 ms) | PASS (commit p50 9 ms) |",
		"| scenario | mode | client | vs |", "| steady | explicit | java | go | 9 | 4 | 2.25 | 60+55 | commits | java slower than go: 2.25x (p<0.001) |",
		"| client |"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), `<h2 id="clients">Clients compared</h2>`) || !strings.Contains(h.String(), "java slower than go") {
		t.Error("report.html lacks the clients' comparison")
	}
	r.Runs, r.ClientComparisons = r.Runs[:1], nil
	b.Reset()
	_ = WriteSummary(&b, r)
	if strings.Contains(b.String(), "Clients side by side") || strings.Contains(b.String(), "| client |") || strings.Contains(b.String(), "~go") {
		t.Errorf("a run of one client shows clients:\n%s", b.String())
	}
}
