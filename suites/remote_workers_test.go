package suites

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// remoteHostEnv marks the worker processes of TestRemoteWorkers, so the test
// can tell that none is left.
const remoteHostEnv = "SHARECHAOS_TEST_WORKER_HOST"

// TestRemoteWorkers runs cells with their workers started through
// --worker-exec, here a command that "reaches" a host by naming it in the
// environment and runs on this machine: the config crosses on stdin, the
// history comes back on stdout, a crash point's self-kill ends the command
// and the slot is replaced, a zombie is looked at and resumed through the
// same command, and the stop is the end of stdin. The slots spread over the
// two hosts, every verdict holds, and no worker outlives the run.
// (On real hosts: the docker test with worker containers, docs/EXTERNAL.md.)
func TestRemoteWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real (embedded) cluster; skipped with -short")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit, ctp.Transactional},
		TxnAcks: "ledger", Seed: 11, WorkerExec: "env " + remoteHostEnv + "={{.Host}}", WorkerBinary: self, WorkerHosts: []string{"h1", "h2"}},
		Scenarios: []string{"steady", "crash-after-commit", "zombie-fenced"}, Records: 400})
	for _, c := range res.Runs {
		t.Logf("%s: %s %s", c.Name(), c.Verdict, c.Reason)
		if c.Verdict != verdict.Pass {
			t.Errorf("%s: %s (%s), want PASS", c.Name(), c.Verdict, c.Reason)
		}
		logs, _ := filepath.Glob(filepath.Join(res.Dir, c.Dir, "workers", "*.log"))
		hosts := map[string]bool{}
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			for _, h := range []string{"h1", "h2"} {
				if strings.Contains(string(b), "on host "+h+"\n") {
					hosts[h] = true
				}
			}
		}
		if len(hosts) != 2 {
			t.Errorf("%s: workers ran on %v, want both hosts", c.Name(), hosts)
		}
		histories, _ := filepath.Glob(filepath.Join(res.Dir, c.Dir, "histories", "*.jsonl"))
		if len(histories) == 0 {
			t.Errorf("%s: no history came back", c.Name())
		}
	}
	if left := processesWithEnv(remoteHostEnv); len(left) > 0 {
		t.Errorf("worker processes left after the run: %v", left)
	}
}

// processesWithEnv lists the pids of this machine's processes whose
// environment names key.
func processesWithEnv(key string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains(string(b), key+"=") {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
