package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/scenarios"
)

// TestExampleScenarioFilesRun runs every row of every file in
// examples/scenarios/ with --scenario-file on the embedded backend.
func TestExampleScenarioFilesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts embedded clusters; skipped with -short")
	}
	files, _ := filepath.Glob("../../examples/scenarios/*.yaml")
	if len(files) == 0 {
		t.Fatal("no example scenario files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := scenarios.LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range f.Scenarios {
				names = append(names, s.Name)
			}
			out := filepath.Join(t.TempDir(), "run")
			code, stdout, stderr := run("run", "--backend", "embedded", "--scenario-file", path,
				"--scenario", strings.Join(names, ","), "--mode", "explicit,transactional", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			res := readResult(t, out)
			if len(res.Runs) != 2*len(names) {
				t.Errorf("%d cells, want %d", len(res.Runs), 2*len(names))
			}
			for _, c := range res.Runs {
				if c.Verdict != "PASS" {
					t.Errorf("%s: %s %s", c.ID(), c.Verdict, c.Reason)
				}
			}
			// The re-check judges the file's rows with the file, and says
			// UNKNOWN (never PASS) without it.
			if code, stdout, stderr := run("check", out, "--scenario-file", path); code != 0 {
				t.Errorf("check --scenario-file: exit %d\n%s%s", code, stdout, stderr)
			}
			if code, stdout, _ := run("check", out); code != 2 || !strings.Contains(stdout, "give the file to check") {
				t.Errorf("check without the file: exit %d, want 2 (UNKNOWN)\n%s", code, stdout)
			}
		})
	}
}

// TestBrokenScenarioFileExits64NamingFileAndLine.
func TestBrokenScenarioFileExits64NamingFileAndLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.yaml")
	if err := os.WriteFile(path, []byte("scenarios:\n  - name: mine\n    about: x\n    worker:\n      point: after-comit\n      action: kill\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run("run", "--scenario-file", path, "--out", filepath.Join(t.TempDir(), "x"))
	if code != 64 || !strings.Contains(stderr, path+":5: scenarios[0].worker.point") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
