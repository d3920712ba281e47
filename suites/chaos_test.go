package suites

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/role"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/worker"

	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

func TestMain(m *testing.M) {
	if code, ok := RunChildRole(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// expectation is what a cell must show beyond its verdict, from ORACLE.md.
type expectation struct {
	verdict       verdict.Verdict
	minDuplicated int  // > 0 where the mode's window must show (crash-after-commit)
	anyDuplicates bool // duplicates allowed but not required (broker-kill, explicit)
}

// TestChaosEmbedded runs the smoke matrix on the embedded backend, one subtest
// per cell named like CONTRACT.md's cell names:
// go test -run 'TestChaosEmbedded/crash-after-commit/explicit' ./suites/
func TestChaosEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real (embedded) cluster; skipped with -short")
	}
	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Transactional, ctp.Explicit, ctp.Implicit}, Seed: 7}, Scenarios: []string{"steady", "crash-after-commit", "crash-after-acks"}, Records: 600})
	if res.Backend != "embedded" {
		t.Fatalf("backend = %q, want embedded", res.Backend)
	}
	checkCells(t, res, smokeExpectations)
}

// smokeExpectations is what ORACLE.md says the smoke cells must show.
var smokeExpectations = map[string]map[ctp.AckMode]expectation{
	"steady": {
		ctp.Transactional: {verdict: verdict.Pass},
		ctp.Explicit:      {verdict: verdict.Pass},
		ctp.Implicit:      {verdict: verdict.Pass},
	},
	"crash-after-commit": {
		// Exactly once: the acks were in the committed transaction.
		ctp.Transactional: {verdict: verdict.Pass},
		// The window KIP-1289 closes: the crashed worker's batch is
		// committed but not acked, so it is processed again.
		ctp.Explicit: {verdict: verdict.Pass, minDuplicated: 1},
		ctp.Implicit: {verdict: verdict.Pass, minDuplicated: 1},
	},
	"crash-after-acks": {
		ctp.Transactional: {verdict: verdict.Pass},
		ctp.Explicit:      {verdict: verdict.NA},
		ctp.Implicit:      {verdict: verdict.NA},
	},
	"broker-kill": {
		ctp.Transactional: {verdict: verdict.Pass},
		ctp.Explicit:      {verdict: verdict.Pass, anyDuplicates: true},
	},
}

// TestChaosDocker runs steady, crash-after-commit, a broker kill and a zombie on real
// Kafka in containers, with the workers on two worker hosts: containers of
// the tool's image reached only through `docker exec -i` (--worker-exec),
// as ssh or kubectl exec would reach other machines. It skips when no
// Docker engine answers or the images are missing, unless
// SHARECHAOS_REQUIRE_DOCKER=1 (CI), where that fails. (Workers as children
// of the orchestrator on docker: every other docker test, and CI's secured
// smoke.)
func TestChaosDocker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real Kafka in containers; skipped with -short")
	}
	requireDocker(t)
	hosts := startWorkerHosts(t, 2)
	res := runMatrix(t, Options{Common: harness.Common{Backend: "docker", Modes: []ctp.AckMode{ctp.Transactional, ctp.Explicit}, Seed: 11,
		WorkerExec: "docker exec -i {{.Host}}", WorkerHosts: hosts, WorkerBinary: "/usr/local/bin/sharechaos"},
		Scenarios: []string{"steady", "crash-after-commit", "broker-kill", "zombie-fenced"}, Records: 1000})
	if res.Backend != "docker" {
		t.Fatalf("backend = %q, want docker", res.Backend)
	}
	checkCells(t, res, smokeExpectations)
	for _, c := range res.Runs {
		if c.Scenario == "zombie-fenced" && c.Verdict != verdict.Pass {
			t.Errorf("%s: %s (%s), want PASS (the zombie stopped and resumed through docker exec)", c.Name(), c.Verdict, c.Reason)
		}
		logs, _ := filepath.Glob(filepath.Join(res.Dir, c.Dir, "workers", "*.log"))
		on := map[string]bool{}
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			for _, h := range hosts {
				if strings.Contains(string(b), "on host "+h+"\n") {
					on[h] = true
				}
			}
		}
		if c.Verdict != verdict.NA && len(on) != len(hosts) {
			t.Errorf("%s: workers ran on %v, want every worker host %v", c.Name(), on, hosts)
		}
	}
	for _, h := range hosts {
		out, _ := exec.Command("docker", "top", h, "-o", "pid,args").CombinedOutput()
		if strings.Contains(string(out), "sharechaos") {
			t.Errorf("worker host %s still runs a worker after the run:\n%s", h, out)
		}
	}
}

// startWorkerHosts starts n containers of the tool's image that stay up
// (sleep), on the host's network so they reach the brokers' published
// ports, removed with the test. They must carry this tree's binary: an
// image built before --worker-exec fails the test, naming the rebuild.
func startWorkerHosts(t *testing.T, n int) []string {
	t.Helper()
	image := docker.ToolImage
	if out, err := exec.Command("docker", "run", "--rm", "-e", role.EnvVar+"="+worker.ControlRole, image, "stat", "1").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot act on a worker (worker-control role): %v\n%s\nrebuild it: make images", image, err, out)
	}
	var hosts []string
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("sc-test-worker-host-%d-%d", os.Getpid(), i)
		out, err := exec.Command("docker", "run", "-d", "--rm", "--network", "host", "--name", name,
			"--label", "sharechaos.test=worker-host", "--entrypoint", "sleep", image, "infinity").CombinedOutput()
		if err != nil {
			t.Fatalf("start worker host %s: %v\n%s", name, err, out)
		}
		t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", name).Run() })
		hosts = append(hosts, name)
	}
	return hosts
}

func requireDocker(t *testing.T) {
	t.Helper()
	ok, why := docker.Available(context.Background())
	if ok {
		return
	}
	if os.Getenv("SHARECHAOS_REQUIRE_DOCKER") == "1" {
		t.Fatalf("SHARECHAOS_REQUIRE_DOCKER=1 but the docker backend is not usable: %s", why)
	}
	t.Skipf("no docker backend (%s); run `bash .ci/run` or `make images` to enable real-Kafka tests", why)
}

// TestTxnAcksNativeOnAStockBroker: --txn-acks native on a broker without the
// KIP-1289 RPCs fails naming the missing APIs and leaves nothing behind; with
// --on-unsupported fallback it runs explicit and says so.
func TestTxnAcksNativeOnAStockBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	// The stock kfake, not the reference broker: a broker without the RPCs.
	t.Setenv(harness.RefBrokerEnv, harness.RefBrokerOff)
	out := filepath.Join(t.TempDir(), "native")
	_, err := Run(context.Background(), Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: "native", Out: out}, Scenarios: []string{"steady"}, Records: 50})
	var ue *harness.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "AddShareAcksToTxn") || !strings.Contains(err.Error(), "TxnShareAcknowledge") {
		t.Fatalf("native on kfake: err = %v, want a usage error naming both missing APIs", err)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("a run that did nothing left %s behind", out)
	}

	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: "native", OnUnsupported: "fallback"}, Scenarios: []string{"steady"}, Records: 50})
	if len(res.Runs) != 1 || res.Runs[0].Mode != "explicit" || res.Runs[0].Verdict != verdict.Pass {
		t.Fatalf("fallback: cells %+v, want one explicit PASS", res.Runs)
	}
	if len(res.Runs[0].Notes) == 0 || !strings.Contains(res.Runs[0].Notes[0], "fallback") {
		t.Errorf("fallback: the report does not say explicit ran instead: notes %v", res.Runs[0].Notes)
	}
}

func runMatrix(t *testing.T, o Options) result.Result {
	t.Helper()
	o.Out = filepath.Join(keptOnFailure(t), "run")
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("run directory: %s (seed %d)", res.Dir, res.Seed)
	for _, f := range []string{"result.json", "summary.md", "report.html", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
			t.Errorf("report file missing: %v", err)
		}
	}
	return res
}

// keptOnFailure is a directory for t's run that is removed when t passes
// and kept when it fails, so a failed cell's histories, events and broker
// logs can be read afterwards (CI keeps /tmp's artefacts).
func keptOnFailure(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sharechaos-"+strings.ReplaceAll(t.Name(), "/", "_")+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kept for reading: %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	return dir
}

func checkCells(t *testing.T, res result.Result, cases map[string]map[ctp.AckMode]expectation) {
	t.Helper()
	seen := 0
	for _, c := range res.Runs {
		want, ok := cases[c.Scenario][ctp.AckMode(c.Mode)]
		if !ok {
			continue
		}
		seen++
		t.Run(c.Scenario+"/"+c.Mode+"/"+c.Backend+result.NameParts{Client: c.Client}.Dimensions(), func(t *testing.T) {
			t.Logf("%s: %s input=%d processed=%d duplicated=%d lost=%d unseen=%d commit p50=%.2fms p99=%.2fms %s",
				c.Name(), c.Verdict, c.Input, c.Processed, c.Duplicated, c.Lost, c.Unseen, c.CommitP50Ms, c.CommitP99Ms, c.Reason)
			if c.Verdict != want.verdict {
				t.Errorf("verdict = %s (%s), want %s", c.Verdict, c.Reason, want.verdict)
			}
			if c.Verdict == verdict.NA {
				if c.Reason == "" {
					t.Error("an N/A cell must say why")
				}
				return
			}
			if c.Lost != 0 {
				t.Errorf("lost = %d, want 0", c.Lost)
			}
			if c.Processed != c.Input || c.Input == 0 {
				t.Errorf("processed %d of %d inputs", c.Processed, c.Input)
			}
			if want.minDuplicated > 0 && c.Duplicated < want.minDuplicated {
				t.Errorf("duplicated = %d, want at least %d: the fault's window did not show", c.Duplicated, want.minDuplicated)
			}
			if want.minDuplicated == 0 && !want.anyDuplicates && c.Duplicated != 0 {
				t.Errorf("duplicated = %d, want 0", c.Duplicated)
			}
		})
	}
	if seen == 0 {
		t.Fatal("no cell of the expected matrix ran")
	}
}
