package main

import (
	"encoding/json"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReplayRunsAsPrinted runs a small run with a threshold (quotes, braces
// and spaces in it) on --backend auto, then runs result.json's command
// through sh -c in another directory, with `sharechaos` on PATH: the replay
// parses, names the backend that ran and the seed, and runs the same cells.
func TestReplayRunsAsPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts embedded clusters; skipped with -short")
	}
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "sharechaos")); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(t.TempDir(), "first")
	cmd := exec.Command(os.Args[0], "run", "--scenario", "steady", "--mode", "explicit,implicit", "--records", "200",
		"--workers", "2", "--threshold", "txn_commit_duration{mode:explicit}: p(99)<1m", "--out", first, "--backend", "embedded")
	cmd.Env = append(os.Environ(), "SHARECHAOS_TEST_MAIN=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	res := readResult(t, first)
	if strings.Contains(res.Command, "--out") || !strings.Contains(res.Command, "--backend embedded") ||
		!strings.Contains(res.Command, "'txn_commit_duration{mode:explicit}: p(99)<1m'") {
		t.Fatalf("result.json command %q: want quoted, without --out, with the backend", res.Command)
	}
	elsewhere := t.TempDir()
	replay := exec.Command("sh", "-c", res.Command)
	replay.Dir = elsewhere
	replay.Env = append(os.Environ(), "SHARECHAOS_TEST_MAIN=1", "PATH="+bin+":"+os.Getenv("PATH"))
	if out, err := replay.CombinedOutput(); err != nil {
		t.Fatalf("replay %q: %v\n%s", res.Command, err, out)
	}
	dirs, _ := filepath.Glob(filepath.Join(elsewhere, "runs", "*"))
	if len(dirs) != 1 {
		t.Fatalf("replay wrote %v, want one run directory under runs/", dirs)
	}
	again := readResult(t, dirs[0])
	if again.Seed != res.Seed || again.Backend != res.Backend || !slices.Equal(cellIDs(again), cellIDs(res)) {
		t.Errorf("replay ran seed %d on %s cells %v, want seed %d on %s cells %v",
			again.Seed, again.Backend, cellIDs(again), res.Seed, res.Backend, cellIDs(res))
	}
	if len(again.Thresholds) != len(res.Thresholds) || len(res.Thresholds) == 0 {
		t.Errorf("replay judged %d thresholds, the run %d", len(again.Thresholds), len(res.Thresholds))
	}
}

func readResult(t *testing.T, dir string) result.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r result.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func cellIDs(r result.Result) []string {
	var ids []string
	for _, c := range r.Runs {
		ids = append(ids, c.ID())
	}
	return ids
}
