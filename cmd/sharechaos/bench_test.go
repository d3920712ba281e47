package main

import (
	"bytes"
	"encoding/json"
	"github.com/sharechaos/sharechaos/suites/harness"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBenchUsageErrorsExit64AndNameTheFlag: every case must fail before a
// cluster starts (a zero that the library would read as "default" included).
func TestBenchUsageErrorsExit64AndNameTheFlag(t *testing.T) {
	out := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--no-such-flag"}, "no-such-flag"},
		{[]string{"bench", "--rate", "fast"}, "-rate"},
		{[]string{"bench", "--rate", "-3", "--out", out + "/a"}, "--rate -3"},
		{[]string{"bench", "--batch", "1,ten", "--out", out + "/b"}, `--batch "ten"`},
		{[]string{"bench", "--batch", "0", "--out", out + "/c"}, "--batch 0"},
		{[]string{"bench", "--mode", "explicit,sometimes", "--out", out + "/d"}, `--mode "sometimes"`},
		{[]string{"bench", "--latency", "5", "--out", out + "/e"}, `--latency "5"`},
		{[]string{"bench", "--duration", "0s", "--out", out + "/f"}, "--duration"},
		{[]string{"bench", "--repeats", "0", "--out", out + "/g"}, "--repeats"},
		{[]string{"bench", "--threshold", "txn_commit_duration < 250ms", "--out", out + "/h"}, "--threshold"},
		{[]string{"bench", "--fault", "crash-after-commit", "--out", out + "/i"}, "--fault"},
		{[]string{"bench", "--backend", "cloud", "--out", out + "/j"}, `--backend "cloud"`},
		{[]string{"bench", "--partitions", "x", "--out", out + "/k"}, `--partitions "x"`},
		{[]string{"bench", "--on-unsupported", "shrug", "--out", out + "/l"}, "--on-unsupported"},
		{[]string{"bench", "--workers", "0", "--out", out + "/m"}, "--workers 0"},
		{[]string{"bench", "--alpha", "0", "--out", out + "/n"}, "--alpha"},
		{[]string{"bench", "stray"}, `unexpected argument "stray"`},
		{[]string{"bench", "--threshold", "txn_comit_duration: p(99)<1s", "--out", out + "/o"}, `unknown metric "txn_comit_duration"`},
		{[]string{"bench", "--threshold", "txn_commit_duration{batch:7}: p(99)<1s", "--batch", "1,10", "--out", out + "/p"}, "batch:7 is not in this run"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := mainCode(c.args, &stdout, &stderr)
		if code != 64 {
			t.Errorf("%v: exit %d, want 64 (stderr: %s)", c.args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: stderr does not name %q:\n%s", c.args, c.want, stderr.String())
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("usage errors left files behind in %s: %v", out, entries)
	}
}

func TestBenchHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := mainCode([]string{"bench", "--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("bench --help: exit %d", code)
	}
	for _, s := range []string{"--mode", "--rate", "--batch", "--latency", "--threshold", "--fault", "Mann-Whitney"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("bench --help does not mention %s on stdout", s)
		}
	}
}

func TestThresholdFlagSplitsOutsideBraces(t *testing.T) {
	var f harness.ThresholdFlag
	_ = f.Set("txn_commit_duration: p(99)<250ms, e2e_latency{mode:explicit,batch:10}: p(50)<1s")
	_ = f.Set("dropped_iterations: count<1")
	want := []string{"txn_commit_duration: p(99)<250ms", "e2e_latency{mode:explicit,batch:10}: p(50)<1s", "dropped_iterations: count<1"}
	if !slices.Equal(f, want) {
		t.Errorf("got %q, want %q", f, want)
	}
}

// TestBenchThresholdExitCodes runs the smallest bench through the command
// line twice: a threshold that cannot hold exits 3 (THRESHOLD-FAILED), one
// that holds exits 0.
func TestBenchThresholdExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	for _, c := range []struct {
		threshold string
		code      int
	}{
		{"txn_total_duration: p(99)<1us", 3},
		{"txn_total_duration: p(99)<1m", 0},
	} {
		out := filepath.Join(t.TempDir(), "bench")
		var stdout, stderr bytes.Buffer
		code := mainCode([]string{"bench", "--backend", "embedded", "--mode", "explicit", "--rate", "10", "--duration", "2s",
			"--warmup", "0s", "--repeats", "1", "--batch", "1", "--workers", "1", "--overhead=false",
			"--threshold", c.threshold, "--out", out}, &stdout, &stderr)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.threshold, code, c.code, stdout.String(), stderr.String())
		}
		if _, err := os.Stat(filepath.Join(out, "bench.json")); err != nil {
			t.Errorf("%s: %v", c.threshold, err)
		}
		if c.code == 3 && !strings.Contains(stdout.String(), "threshold failed: "+c.threshold) {
			t.Errorf("stdout does not name the failed threshold:\n%s", stdout.String())
		}
	}
}

// TestBenchInterrupt sends Ctrl-C (SIGINT) to a running bench: it stops,
// closes the cluster (no child process outlives it), writes what it recorded
// with interrupted set, and exits 2 (UNKNOWN).
func TestBenchInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	out := filepath.Join(t.TempDir(), "bench")
	cmd := exec.Command(os.Args[0], "bench", "--backend", "embedded", "--mode", "explicit,implicit", "--rate", "10",
		"--duration", "5m", "--warmup", "0s", "--repeats", "2", "--batch", "1", "--workers", "1", "--out", out)
	cmd.Env = append(os.Environ(), "SHARECHAOS_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(out, "runs", "*", "histories", "w*.jsonl")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no worker started within 90s; stderr: %s", stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	children := descendants(cmd.Process.Pid)
	if len(children) == 0 {
		t.Fatal("found no child processes (the embedded broker) to watch")
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("exit code after Ctrl-C = %d (%v), want 2 (UNKNOWN: interrupted); stderr:\n%s", code, err, stderr.String())
	}
	for _, pid := range children {
		if alive(pid) {
			t.Errorf("child process %d outlived the interrupted bench", pid)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "bench.json"))
	if err != nil {
		t.Fatalf("no bench.json after Ctrl-C: %v", err)
	}
	var res struct {
		Verdict     string `json:"verdict"`
		Interrupted bool   `json:"interrupted"`
		Runs        []struct {
			Counters map[string]int64 `json:"counters"`
			Error    string           `json:"error"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("bench.json: %v", err)
	}
	if !res.Interrupted || res.Verdict != "UNKNOWN" {
		t.Errorf("bench.json: interrupted=%v verdict=%s, want true and UNKNOWN", res.Interrupted, res.Verdict)
	}
	if len(res.Runs) != 1 || res.Runs[0].Counters["transactions"] == 0 || !strings.Contains(res.Runs[0].Error, "interrupted") {
		t.Errorf("bench.json runs %+v: want the interrupted run with what it measured", res.Runs)
	}
	for _, f := range []string{"summary.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
