package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/suites"
)

func TestMain(m *testing.M) {
	if code, ok := suites.RunChildRole(os.Args[1:]); ok {
		os.Exit(code)
	}
	// The test binary doubles as the sharechaos binary for the subprocess tests.
	if os.Getenv("SHARECHAOS_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

func TestUsageErrorsExit64AndNameTheProblem(t *testing.T) {
	out := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--no-such-flag"}, "no-such-flag"},
		{[]string{"run", "--scenario", "steady,no-such-scenario", "--out", out + "/a"}, `unknown scenario "no-such-scenario"`},
		{[]string{"run", "--mode", "sometimes", "--out", out + "/b"}, `--mode "sometimes"`},
		{[]string{"run", "--backend", "cloud", "--out", out + "/c"}, `--backend "cloud"`},
		{[]string{"run", "--records", "-5", "--out", out + "/d"}, "--records -5"},
		{[]string{"run", "--lock", "2s", "--txn-timeout", "3s", "--out", out + "/e"}, "--txn-timeout"},
		{[]string{"run", "stray"}, `unexpected argument "stray"`},
		{[]string{"run", "--kafka-version", "4.2", "--out", out + "/f"}, `kafka version "4.2"`},
		{[]string{"run", "--kafka-version", "4.2.2,4.2.2", "--out", out + "/g"}, "given twice"},
		{[]string{"run", "--kafka-version", "4.2.2", "--kafka-image", "x/kafka:1", "--out", out + "/h"}, "give one"},
		{[]string{"run", "--backend", "embedded", "--kafka-version", "4.2.2", "--out", out + "/i"}, "need --backend docker"},
		{[]string{"run", "--upgrade-to", "4.4", "--out", out + "/k"}, "--upgrade-to: kafka version \"4.4\""},
		{[]string{"bench", "--kafka-version", "4.2.2,4.9.9", "--out", out + "/j"}, "sharechaos/kafka:4.9.9"},
		{[]string{"run", "--backend", "docker", "--kafka-image", "no-such:1", "--scenario", "steady", "--out", out + "/o"}, "no-such:1"},
		{[]string{"cluster", "up", "--kafka-version", "4.9.9", "--out", out + "/p"}, "sharechaos/kafka:4.9.9"},
		{[]string{"run", "--kafka-image", "x/kafka:1,y/kafka:1", "--out", out + "/l"}, "a run qualifies one image"},
		{[]string{"bench", "--kafka-image", "x/kafka:1,x/kafka:1", "--out", out + "/m"}, "--kafka-image x/kafka:1: given twice"},
		{[]string{"bench", "--backend", "embedded", "--kafka-image", "x/kafka:1,y/kafka:1", "--out", out + "/n"}, "needs --backend docker"},
		{[]string{"hunt", "--budget", "-1m", "--out", out + "/q"}, "--budget -1m0s"},
		{[]string{"hunt", "--replays", "0", "--out", out + "/r"}, "--replays 0"},
		{[]string{"hunt", "--fault", "broker-kill,no-such", "--out", out + "/s"}, `--fault "no-such"`},
		{[]string{"hunt", "--fault", "stale-share-state-write", "--out", out + "/t"}, `--fault "stale-share-state-write"`},
		{[]string{"hunt", "--backend", "embedded", "--kafka-version", "4.2.2", "--out", out + "/u"}, "need --backend docker"},
		{[]string{"hunt", "--backend", "docker", "--kafka-image", "no-such:1", "--budget", "1m", "--out", out + "/v"}, "no-such:1"},
		{[]string{"run", "--broker-config", "listeners=PLAINTEXT://:1", "--out", out + "/w"}, "--broker-config listeners: the docker backend sets it"},
		{[]string{"bench", "--broker-config", "num.io.threads", "--out", out + "/x"}, `--broker-config "num.io.threads": want KEY=VALUE`},
		{[]string{"run", "--broker-config", "a=1", "--broker-config", "a=2", "--out", out + "/y"}, "--broker-config a: given twice"},
		{[]string{"run", "--broker-config", "kip1289.pending.lock=hold", "--out", out + "/z"}, "use --kip1289-pending-lock"},
		{[]string{"run", "--backend", "embedded", "--broker-config", "a=1", "--out", out + "/aa"}, "--broker-config sets the brokers the docker backend starts"},
		{[]string{"run", "--broker-security", "tls", "--out", out + "/ab"}, `--broker-security "tls"`},
		{[]string{"bench", "--backend", "embedded", "--broker-security", "sasl_ssl", "--out", out + "/ac"}, "--client-config reaches a secured external cluster"},
		{[]string{"run", "--worker-hosts", "a,b", "--out", out + "/ad"}, "--worker-hosts needs --worker-exec"},
		{[]string{"run", "--worker-exec", "ssh -T {{.Host}}", "--out", out + "/ae"}, "--worker-exec needs --worker-hosts"},
		{[]string{"run", "--worker-exec", "ssh {{.Hots}}", "--worker-hosts", "a", "--out", out + "/af"}, "Hots"},
		{[]string{"run", "--worker-exec", "ssh {{.Host}}", "--worker-hosts", "a", "--client", "java", "--txn-acks", "ledger", "--out", out + "/ag"}, "--client java runs here only"},
		{[]string{"bench", "--worker-exec", "ssh {{.Host}}", "--worker-hosts", "a", "--out", out + "/ah"}, "the bench steps its go workers in this process"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{nil, "Usage"},
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
	// Nothing was run, so nothing was written.
	entries, _ := os.ReadDir(out)
	if len(entries) != 0 {
		t.Errorf("usage errors left files behind in %s: %v", out, entries)
	}
}

func TestHelpExitsZero(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := mainCode([]string{"run", "--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("run --help: exit %d", code)
	}
	if !strings.Contains(stdout.String(), "--scenario") || !strings.Contains(stdout.String(), "crash-after-commit") {
		t.Errorf("run --help does not list flags and scenarios on stdout:\n%s", stdout.String())
	}
}

// TestInterruptLeavesNothingBehind sends Ctrl-C (SIGINT) to a running
// sharechaos run and checks that it writes what it recorded and leaves no
// child process.
func TestInterruptLeavesNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(os.Args[0], "run", "--backend", "embedded", "--scenario", "steady", "--mode", "explicit",
		"--records", "200000", "--out", out)
	cmd.Env = append(os.Environ(), "SHARECHAOS_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until workers run (their histories appear), then interrupt.
	deadline := time.Now().Add(90 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(out, "cells", "*", "histories", "w*.jsonl"))
		if len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no worker started within 90s; stderr: %s", stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second)
	children := descendants(cmd.Process.Pid)
	if len(children) == 0 {
		t.Fatal("found no child processes of the run to watch")
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code != 2 {
		t.Errorf("exit code after Ctrl-C = %d (%v), want 2 (UNKNOWN: interrupted); stderr:\n%s", code, err, stderr.String())
	}
	for _, pid := range children {
		if alive(pid) {
			t.Errorf("child process %d outlived the interrupted run", pid)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatalf("no result.json after Ctrl-C: %v", err)
	}
	var res struct {
		Verdict     string `json:"verdict"`
		Interrupted bool   `json:"interrupted"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("result.json: %v", err)
	}
	if !res.Interrupted || res.Verdict != "UNKNOWN" {
		t.Errorf("result.json: interrupted=%v verdict=%s, want true and UNKNOWN", res.Interrupted, res.Verdict)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "cells", "*", "histories", "w*.jsonl")); len(m) == 0 {
		t.Error("the workers' histories are not in the run directory")
	}
}

// descendants lists every process below pid (from /proc).
func descendants(pid int) []int {
	parent := map[int]int{}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		me, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		pp, _ := strconv.Atoi(f[1])
		parent[me] = pp
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(pid)
	return out
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// A zombie (state Z) is dead but not yet reaped by its parent.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
