package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/scenarios"
)

func run(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = mainCode(args, &o, &e)
	return code, o.String(), e.String()
}

// TestRunHelpIsComplete: run's help, on stdout, has GNU flags in groups,
// every scenario with its About, what each profile contains, the
// environment and the exit codes.
func TestRunHelpIsComplete(t *testing.T) {
	code, out, errOut := run("run", "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("run --help: exit %d, stderr %q", code, errOut)
	}
	want := []string{"--records int", "--threshold", "Load flags:", "Fault flags:", "Timing flags:", "Output flags:",
		"SHARECHAOS_KAFKA_IMAGE", "SHARECHAOS_TOXIPROXY_IMAGE", "SHARECHAOS_REQUIRE_DOCKER", "NO_COLOR",
		"Exit codes", "64 usage error"}
	for _, s := range scenarios.All() {
		want = append(want, s.Name+" ", s.About)
	}
	for _, p := range scenarios.Profiles() {
		want = append(want, p.Name, p.About)
		want = append(want, p.Thresholds...)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("run --help lacks %q", w)
		}
	}
	// No Go-flag style single-dash long names.
	if m := regexp.MustCompile(`(?m)^\s+-[a-z]{2,}`).FindString(out); m != "" {
		t.Errorf("run --help shows a single-dash long flag: %q", m)
	}
	// Load flags come before output flags, and --records is a load flag.
	load, output := strings.Index(out, "Load flags:"), strings.Index(out, "Output flags:")
	if rec := strings.Index(out, "--records int"); !(load < rec && rec < output) {
		t.Errorf("--records is not in the load group")
	}
}

func TestHelpCommandEqualsHelpFlag(t *testing.T) {
	for _, cmd := range []string{"run", "bench", "check", "report"} {
		_, viaFlag, _ := run(cmd, "--help")
		code, viaCmd, _ := run("help", cmd)
		if code != 0 || viaCmd != viaFlag || viaCmd == "" {
			t.Errorf("help %s (exit %d) differs from %s --help", cmd, code, cmd)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run("version")
	if code != 0 || !strings.HasPrefix(out, "sharechaos ") || !strings.Contains(out, "go1.") {
		t.Errorf("version: exit %d, %q", code, out)
	}
}

func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, _ := run("completion", sh)
		if code != 0 || !strings.Contains(out, "sharechaos") {
			t.Errorf("completion %s: exit %d", sh, code)
		}
	}
}

// TestFlagsAfterArguments: `check DIR --write` parses (and fails only on the
// missing directory).
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir() + "/none"
	code, _, errOut := run("check", dir, "--write")
	if code != 64 || strings.Contains(errOut, "flag") || !strings.Contains(errOut, "result.json") {
		t.Errorf("check DIR --write: exit %d, stderr %q", code, errOut)
	}
}

// TestZerosAreUsageErrors: zeros and negatives the library would read as
// "the default" exit 64, naming the flag.
func TestZerosAreUsageErrors(t *testing.T) {
	out := t.TempDir()
	for _, c := range [][]string{
		{"--records", "0"}, {"--workers", "0"}, {"--batch", "0"}, {"--partitions", "-1"}, {"--repeats", "0"},
		{"--parallel", "0"}, {"--clusters", "0"}, {"--clusters", "3"}, {"--brokers", "0"}, {"--lock", "0s"}, {"--drain-timeout", "-1s"}, {"--txn-timeout", "0s"},
	} {
		code, _, errOut := run(append([]string{"run", "--out", out + "/x"}, c...)...)
		if code != 64 || !strings.Contains(errOut, c[0]+" "+c[1]) {
			t.Errorf("%v: exit %d, stderr %q", c, code, errOut)
		}
	}
}

func TestReplayCommandIsShellQuotedWithoutOut(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.String("out", "", "")
	fs.String("backend", "", "")
	fs.String("threshold", "", "")
	fs.Bool("verbose", false, "")
	got := replayCommand("run", []string{"run", "--out", "runs/x", "--threshold", "txn_commit_duration{mode:explicit}: p(99)<1s",
		"--verbose", "--backend=auto", "--scenario", "it's"}, fs, runReplayDropped...)
	want := `sharechaos run --threshold 'txn_commit_duration{mode:explicit}: p(99)<1s' --verbose --scenario 'it'\''s'`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestBadThresholdsExit64BeforeAnythingRuns: a misspelt metric, tag or tag
// value exits 64 naming it, within seconds (no cluster started).
func TestBadThresholdsExit64BeforeAnythingRuns(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct{ threshold, want string }{
		{"txn_comit_duration: p(99)<1s", `unknown metric "txn_comit_duration"`},
		{"txn_commit_duration{mood:explicit}: p(99)<1s", `unknown tag "mood"`},
		{"txn_commit_duration{mode:transactionl}: p(99)<1s", "mode:transactionl is not in this run"},
		{"txn_commit_duration{scenario:broker-kill}: p(99)<1s", "scenario:broker-kill is not in this run"},
		{"txn_commit_duration{backend:auto}: p(99)<1s", "backend:auto is not in this run"},
		{"lost: p(99)<1", "lost is a count"},
	} {
		start := time.Now()
		code, _, errOut := run("run", "--backend", "embedded", "--scenario", "steady", "--threshold", c.threshold, "--out", out+"/x")
		if code != 64 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want 64 naming %q", c.threshold, code, errOut, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v to refuse", c.threshold, d)
		}
	}
}
