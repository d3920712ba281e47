package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
)

var started = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// sampleResult has one cell of every verdict, an allowed and a forbidden
// anomaly with examples, and a threshold.
func sampleResult() result.Result {
	counts := verdict.Counts{Input: 2000, Processed: 2000}
	dup := counts
	dup.Duplicated, dup.ExtraOutputs = 12, 12
	lost := counts
	lost.Processed, lost.Lost = 1997, 3
	return result.Result{
		Verdict: verdict.HarnessError, ExitCode: 4, Seed: 42, Started: started, DurationS: 93.5,
		Backend: "embedded", BackendWhy: "no Docker engine answered",
		Command: "sharechaos run --backend auto --scenario steady,crash-after-commit --mode explicit,implicit",
		Config:  map[string]string{"records": "2000", "group.share.record.lock.duration.ms": "15000"},
		Runs: []result.Cell{
			{Scenario: "steady", Mode: "explicit", Backend: "embedded", Verdict: verdict.Pass, Counts: counts,
				CommitP50Ms: 1.2, CommitP99Ms: 5.6, Allowed: []string{"duplicate"}, DurationS: 10,
				Latency: map[string]result.Percentiles{"txn_commit_duration": {Count: 100, P50: 1.2, P90: 3, P99: 5.6, P999: 7, Max: 8}}},
			{Scenario: "crash-after-commit", Mode: "explicit", Backend: "embedded", Verdict: verdict.Pass, Counts: dup,
				Fault:   result.Fault{Name: "crash-after-commit", Fired: true, Times: []time.Time{started.Add(3 * time.Second)}},
				Allowed: []string{"duplicate"},
				Anomalies: map[string]verdict.Found{"duplicate": {Count: 12, Examples: []verdict.Example{{
					Record: "r-000123", Summary: "processed by w1.1 (txn 7) and w1.2 (txn 1)",
					Steps: []string{"12:00:01.000 w1.1 commit 7: ok", "12:00:01.001 w1.1 fault-fired: crash-after-commit"},
					Fault: "crash-after-commit"}}}}},
			{Scenario: "crash-after-commit", Mode: "implicit", Backend: "embedded", Verdict: verdict.Anomaly, Counts: lost,
				Fault: result.Fault{Name: "crash-after-commit", Fired: true}, Allowed: []string{"duplicate"},
				Anomalies: map[string]verdict.Found{"lost": {Count: 3, Examples: []verdict.Example{{Record: "r-000007", Summary: "accepted | never output"}}}}},
			{Scenario: "explicit-abort", Mode: "explicit", Backend: "embedded", Verdict: verdict.Unknown,
				Fault: result.Fault{Name: "explicit-abort"}, Reason: "fault never fired"},
			{Scenario: "broker-kill", Mode: "explicit", Backend: "embedded", Verdict: verdict.NA,
				Reason: "kfake loses share-group state on kill -9: run on real Kafka"},
			{Scenario: "steady", Mode: "transactional", Backend: "embedded", Realization: "ledger", Verdict: verdict.HarnessError,
				Reason: "worker could not be launched"},
		},
		Thresholds: []result.ThresholdResult{{Threshold: "txn_commit_duration: p(99)<250ms", Metric: "txn_commit_duration", Observed: 5.6, Unit: "ms", Pass: true}},
	}
}

// figuresFor makes each cell's figures from a real recording, as the runner will.
func figuresFor(r result.Result) result.Figures {
	rec := bench.NewRecorder(0)
	for i := 0; i < 300; i++ {
		at := started.Add(time.Duration(i) * 10 * time.Millisecond)
		d := time.Duration(1+i%7) * time.Millisecond
		if i > 100 && i < 130 {
			d = 80 * time.Millisecond
		}
		rec.Record(bench.TxnCommitDuration, at, d)
		rec.Record(bench.TxnTotalDuration, at, 2*d)
		rec.Add(bench.Transactions, at, 1)
	}
	snap := rec.Snapshot()
	win := []bench.Window{{Name: "crash-after-commit", Start: started.Add(time.Second), End: started.Add(1300 * time.Millisecond)}}
	figs := result.Figures{}
	for _, c := range r.Runs[:2] {
		figs[c.ID()] = snap.CellFigures(started, win, []string{bench.TxnCommitDuration, bench.TxnTotalDuration}, []string{bench.Transactions})
	}
	return figs
}

func TestWriteRunWritesCompleteFiles(t *testing.T) {
	dir := t.TempDir()
	r := sampleResult()
	if err := reports.WriteRun(dir, r, figuresFor(r)); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"junit.xml", "report.html", "result.json", "summary.md"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("files %v, want exactly %v (no temp files left)", names, want)
	}

	// result.json round-trips.
	back, err := result.ReadResultJSON(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(back)
		t.Fatalf("result.json does not round-trip:\n%s\n%s", a, b)
	}
	// The contract's names are in the file.
	raw, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	for _, key := range []string{`"verdict"`, `"exit_code"`, `"seed"`, `"started"`, `"duration_s"`, `"runs"`, `"scenario"`, `"realization"`,
		`"repeat"`, `"input"`, `"processed"`, `"duplicated"`, `"extra_outputs"`, `"lost"`, `"archived"`, `"unseen"`, `"aborted_reads"`,
		`"torn_txns"`, `"phantoms"`, `"commit_p50_ms"`, `"commit_p99_ms"`, `"txn_p50_ms"`, `"txn_p99_ms"`, `"fault"`, `"fired"`, `"allowed"`, `"anomalies"`, `"reason"`} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("result.json lacks %s", key)
		}
	}
}

func TestWriteResultJSONIsAtomic(t *testing.T) {
	dir := t.TempDir()
	r := sampleResult()
	if err := result.WriteResultJSON(dir, r); err != nil {
		t.Fatal(err)
	}
	r.Seed = 43
	if err := result.WriteResultJSON(dir, r); err != nil {
		t.Fatal(err)
	}
	back, err := result.ReadResultJSON(filepath.Join(dir, "result.json"))
	if err != nil || back.Seed != 43 {
		t.Fatalf("overwrite: seed %d err %v", back.Seed, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := result.WriteResultJSON(filepath.Join(dir, "missing", "dir"), r); err == nil {
		t.Fatal("writing into a missing folder must fail")
	}
}

func TestSummaryMarkdown(t *testing.T) {
	var buf bytes.Buffer
	r := sampleResult()
	if err := reports.WriteSummary(&buf, r); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	t.Log("\n" + md)
	for _, want := range []string{
		"# sharechaos run: HARNESS-ERROR\n",
		"**HARNESS-ERROR**: the suite itself failed (exit code 4).",
		"6 cells: 2 PASS, 1 ANOMALY, 1 UNKNOWN, 1 HARNESS-ERROR, 1 N/A.",
		"| seed | 42 |",
		"| backend | embedded: no Docker engine answered |",
		"| scenario | mode | backend | realization | verdict | input | processed | duplicated |",
		"| crash-after-commit | explicit | embedded | - | PASS | 2000 | 2000 | 12 | 12 | 0 |",
		"| crash-after-commit: fired | duplicate |",
		"| steady | transactional | embedded | ledger | HARNESS-ERROR |",
		"- **explicit-abort/explicit/embedded** UNKNOWN: fault never fired",
		"- **broker-kill/explicit/embedded** N/A: kfake loses",
		"### crash-after-commit/explicit/embedded: duplicate × 12 (allowed in this mode)",
		"1. record `r-000123`: processed by w1.1 (txn 7) and w1.2 (txn 1)",
		"   12:00:01.001 w1.1 fault-fired: crash-after-commit",
		"### crash-after-commit/implicit/embedded: lost × 3 (NOT allowed in this mode)",
		`accepted \| never output`, // a pipe in text must not break the table
		"## Thresholds",
		"## Latency (ms)",
		"sharechaos run --backend auto --scenario steady,crash-after-commit --mode explicit,implicit --seed 42",
		"| group.share.record.lock.duration.ms | 15000 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	// Every table row of the cell table has the same number of columns.
	var cellRows []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| scenario |") {
			in = true
		}
		if in && l == "" {
			break
		}
		if in {
			cellRows = append(cellRows, l)
		}
	}
	if len(cellRows) != 2+len(r.Runs) {
		t.Fatalf("cell table has %d lines, want %d", len(cellRows), 2+len(r.Runs))
	}
	pipes := regexp.MustCompile(`(^|[^\\])\|`)
	for _, l := range cellRows {
		if n, want := len(pipes.FindAllString(l, -1)), len(pipes.FindAllString(cellRows[0], -1)); n != want {
			t.Errorf("row %q has %d columns separators, want %d", l, n, want)
		}
	}
}

func TestReplayCommand(t *testing.T) {
	r := result.Result{Seed: 7, Command: "sharechaos run --seed=7 --mode explicit"}
	if got := reports.ReplayCommand(r); got != r.Command {
		t.Fatalf("a command with --seed stays as it is: %q", got)
	}
	r = result.Result{Seed: 7, Backend: "docker", Runs: []result.Cell{
		{Scenario: "a", Mode: "explicit"}, {Scenario: "b", Mode: "explicit"}, {Scenario: "a", Mode: "implicit"}}}
	if got, want := reports.ReplayCommand(r), "sharechaos run --backend docker --scenario a,b --mode explicit,implicit --seed 7"; got != want {
		t.Fatalf("built command %q, want %q", got, want)
	}
}

type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnit(t *testing.T) {
	var buf bytes.Buffer
	if err := reports.WriteJUnit(&buf, sampleResult()); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, buf.String())
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d testsuites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Tests != 7 || s.Failures != 3 || s.Skipped != 1 || doc.Tests != 7 {
		t.Fatalf("tests %d failures %d skipped %d", s.Tests, s.Failures, s.Skipped)
	}
	want := map[string]string{ // name -> "" pass, failure type, or "skipped"
		"steady/explicit/embedded":                   "",
		"crash-after-commit/explicit/embedded":       "",
		"crash-after-commit/implicit/embedded":       "anomaly",
		"explicit-abort/explicit/embedded":           "unknown",
		"broker-kill/explicit/embedded":              "skipped",
		"steady/transactional/embedded/ledger":       "harness-error",
		"threshold txn_commit_duration: p(99)<250ms": "",
	}
	for _, c := range s.Cases {
		got := ""
		switch {
		case c.Failure != nil:
			got = c.Failure.Type
		case c.Skipped != nil:
			got = "skipped"
		}
		w, ok := want[c.Name]
		if !ok {
			t.Errorf("unexpected testcase %q", c.Name)
			continue
		}
		if got != w {
			t.Errorf("%s: %q, want %q", c.Name, got, w)
		}
		if c.Name == "crash-after-commit/implicit/embedded" &&
			(!strings.Contains(c.Failure.Message, "not allowed: lost ×3") || !strings.Contains(c.Failure.Text, "r-000007")) {
			t.Errorf("anomaly failure must name the anomaly and its example: %+v", c.Failure)
		}
		if c.Name == "broker-kill/explicit/embedded" && !strings.Contains(c.Skipped.Message, "kfake") {
			t.Errorf("N/A must carry its reason: %+v", c.Skipped)
		}
	}
	var seed string
	for _, p := range s.Props {
		if p.Name == "seed" {
			seed = p.Value
		}
	}
	if seed != "42" {
		t.Fatalf("seed property %q", seed)
	}
}

func TestJUnitNamesRepeatsApart(t *testing.T) {
	r := result.Result{Runs: []result.Cell{
		{Scenario: "steady", Mode: "explicit", Backend: "embedded", Verdict: verdict.Pass, Repeat: 1},
		{Scenario: "steady", Mode: "explicit", Backend: "embedded", Verdict: verdict.Pass, Repeat: 2},
	}}
	var buf bytes.Buffer
	if err := reports.WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `name="steady/explicit/embedded#1"`) || !strings.Contains(buf.String(), `name="steady/explicit/embedded#2"`) {
		t.Fatalf("repeats need distinct names:\n%s", buf.String())
	}
	// A run of one repeat (numbered 1, as every run's cells are) names its
	// cells as --scenario and go test -run do.
	buf.Reset()
	r.Runs = r.Runs[:1]
	if err := reports.WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `name="steady/explicit/embedded"`) {
		t.Fatalf("a run without repeats names its cells without #:\n%s", buf.String())
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	var buf bytes.Buffer
	r := sampleResult()
	if err := reports.WriteHTML(&buf, r, figuresFor(r)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if os.Getenv("SHARECHAOS_KEEP_HTML") != "" {
		_ = os.WriteFile(os.Getenv("SHARECHAOS_KEEP_HTML"), buf.Bytes(), 0o644)
	}
	checkSelfContained(t, page)
	for _, want := range []string{
		`<span class="v v-harness">HARNESS-ERROR</span>`,
		`<th>explicit/embedded</th>`, `<th>transactional/embedded/ledger</th>`, // matrix columns
		`<td class="v-anomaly"><a href="#cell-crash-after-commit_implicit_embedded">ANOMALY</a></td>`,
		`<td class="v-na"><a href="#cell-broker-kill_explicit_embedded">N/A</a></td>`,
		`id="cell-crash-after-commit_explicit_embedded"`,
		`duplicate × 12 <span class="ok">(allowed in this mode)</span>`,
		`lost × 3 <span class="bad">(NOT allowed in this mode)</span>`,
		`record <code>r-000123</code>`,
		`accepted | never output`,
		`12:00:01.001 w1.1 fault-fired: crash-after-commit`,
		`--seed 42`,
		`fault never fired`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// 2 cells x 3 figures (spectrum, latency over time, throughput).
	if n := strings.Count(page, "<svg"); n != 6 {
		t.Errorf("%d inline SVGs, want 6", n)
	}
	for _, want := range []string{"latency percentile spectrum", ">99%<", "fault: crash-after-commit", "throughput over time"} {
		if !strings.Contains(page, want) {
			t.Errorf("plots lack %q", want)
		}
	}
}

// checkSelfContained fails on anything a browser would fetch: scripts,
// stylesheets, images or fonts from elsewhere.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
		t.Fatal("not a whole HTML page")
	}
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url(", `src="`} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q: it must load nothing", bad)
		}
	}
	// The only URLs allowed are XML namespace names, which are never fetched.
	urls := regexp.MustCompile(`https?://[^\s"'<>]+`).FindAllString(page, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("report.html refers to %s", u)
		}
	}
}

func TestHTMLWithoutFiguresOrCells(t *testing.T) {
	var buf bytes.Buffer
	if err := reports.WriteHTML(&buf, result.Result{Verdict: verdict.Pass}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "No cell ran.") {
		t.Fatal("an empty run must say so")
	}
}

func TestRenderSVGOfEmptyFigureIsLeftOut(t *testing.T) {
	if _, err := reports.RenderSVG(result.Figure{Title: "empty"}); err == nil {
		t.Fatal("an empty figure cannot be drawn")
	}
	// A single point and a zero-length shade still draw.
	svg, err := reports.RenderSVG(result.Figure{Title: "one", Series: []result.TimeSeries{{Label: "x", Points: []result.TimePoint{{Offset: 0, Value: 0}}}},
		Shades: []result.Shade{{Label: "f", From: 0, To: 0}}})
	if err != nil || !strings.HasPrefix(svg, "<svg") {
		t.Fatalf("err %v svg %.40q", err, svg)
	}
}
