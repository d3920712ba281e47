package scenarios

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

func TestExampleFilesLoad(t *testing.T) {
	files, _ := filepath.Glob("../examples/scenarios/*.yaml")
	if len(files) < 3 {
		t.Fatalf("want at least 3 example files, found %v", files)
	}
	for _, path := range files {
		f, err := LoadFile(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if _, err := WithExtra(f.Scenarios, f.Profiles); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestFileRowsAreCatalogRows(t *testing.T) {
	f, err := LoadFile("../examples/scenarios/stall-past-lock.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := f.Scenarios[0]
	if s.Worker == nil || s.Worker.Point != ctp.PointBeforeCommit || s.Worker.Action != ctp.ActionStall {
		t.Fatalf("worker fault %+v", s.Worker)
	}
	if got := s.Worker.Stall(5 * time.Second); got != 7*time.Second {
		t.Errorf("stall lock+2s at a 5s lock = %v", got)
	}
	if s.Load.Lock != 5*time.Second || s.Load.Records != 300 {
		t.Errorf("load %+v", s.Load)
	}
	if _, ok := s.ExpectFor(ctp.Implicit).Allowed[verdict.AnomalyLost]; !ok {
		t.Errorf("implicit does not allow lost: %+v", s.ExpectFor(ctp.Implicit))
	}
	if len(s.ExpectFor(ctp.Transactional).Allowed) != 0 {
		t.Errorf("transactional, not named, must be allowed nothing")
	}
	g, err := LoadFile("../examples/scenarios/fault-schedule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if g.Scenarios[0].Target() != "cluster" || g.Scenarios[0].Cluster.AfterLoad != 0.1 {
		t.Errorf("schedule: %+v", g.Scenarios[0].Cluster)
	}
	cat, err := WithExtra(g.Scenarios, g.Profiles)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := cat.LookupProfile("examples-schedule")
	if !ok || p.Repeats != 2 || len(p.Thresholds) != 1 {
		t.Errorf("profile %+v", p)
	}
}

// TestBrokenFilesNameFileLineAndField: every mistake is reported as
// file:line: field: what.
// A worker arm beside a schedule: both faults of one row.
func TestWorkerArmBesideASchedule(t *testing.T) {
	f, err := ParseFile("f.yaml", []byte("scenarios:\n  - name: x\n    about: y\n    worker:\n      point: after-send\n      action: kill\n    schedule:\n      steps:\n        - fault: slow-network\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Scenarios[0]; s.Worker == nil || s.Cluster == nil {
		t.Fatalf("worker %v, cluster %v: want both", s.Worker, s.Cluster)
	}
}

func TestBrokenFilesNameFileLineAndField(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"scenarios:\n  - name: x\n    about: y\n    wokrer: {}\n", "f.yaml:4: scenarios[0].wokrer: unknown field"},
		{"scenarios:\n  - name: x\n    about: y\n    worker:\n      point: aftr-commit\n      action: kill\n", `f.yaml:5: scenarios[0].worker.point: unknown point "aftr-commit"`},
		{"scenarios:\n  - name: x\n    about: y\n    cluster:\n      fault: broker-kil\n", `f.yaml:5: scenarios[0].cluster.fault: unknown cluster fault "broker-kil"`},
		{"scenarios:\n  - name: x\n    about: y\n    expect:\n      explicit:\n        allowed:\n          dupe: why\n", `f.yaml:6: scenarios[0].expect.explicit.allowed.dupe: "dupe" is not an anomaly`},
		{"scenarios:\n  - name: x\n    about: y\n    expect:\n      sometimes: {}\n", `f.yaml:5: scenarios[0].expect.sometimes: unknown mode "sometimes"`},
		{"scenarios:\n  - name: steady\n    about: y\n", `f.yaml:2: scenarios[0].name: "steady" is a built-in scenario`},
		{"scenarios:\n  - name: x\n    about: y\n    load:\n      records: 0\n", "f.yaml:5: scenarios[0].load.records: want a positive value"},
		{"thresholds:\n  - \"txn_commit_duration < 5s\"\n", "f.yaml:2: thresholds[0]: parse threshold"},
		{"profiles:\n  - name: p\n    scenarios: [nope]\n", `f.yaml:3: profiles[0].scenarios[0]: unknown scenario "nope"`},
		{"scenarios:\n  - name: x\n    about: y\n    load:\n      records: many\n", "f.yaml: line 5"},
		{"scenarios: [\n", "f.yaml: yaml: line"},
		{"scenarios:\n  - name: x\n    about: y\n    worker:\n      point: after-commit\n      action: abort\n", "f.yaml:6: scenarios[0].worker.action: the loop does not abort at after-commit (only at [before-commit])"},
		{"scenarios:\n  - name: x\n    about: y\n    worker:\n      point: before-commit\n      action: stop\n    schedule:\n      steps:\n        - fault: slow-network\n", "f.yaml:6: scenarios[0].worker.action: stop (a zombie, fenced) is driven by the orchestrator"},
		{"scenarios:\n  - name: x\n    about: y\n    cluster:\n      fault: slow-network\n    schedule:\n      steps:\n        - fault: slow-network\n", "f.yaml:2: scenarios[0]: cluster and schedule exclude each other"},
	}
	for _, c := range cases {
		_, err := ParseFile("f.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.yaml, err, c.want)
		}
	}
}
