package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An orchestrator killed with SIGKILL cannot write anything at the end; the
// plan written at its start lets `sharechaos check` name the cells that never
// finished, and the run is UNKNOWN (exit 2).
func TestKilledOrchestratorRechecksUnknownNamingUnfinishedCells(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded cluster; skipped with -short")
	}
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(os.Args[0], "run", "--backend", "embedded", "--scenario", "steady,crash-after-commit",
		"--mode", "explicit", "--records", "200000", "--out", out)
	cmd.Env = append(os.Environ(), "SHARECHAOS_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
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
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	// The children die by Pdeathsig; give the kernel a moment to deliver it.
	time.Sleep(2 * time.Second)
	for _, pid := range children {
		if alive(pid) {
			t.Errorf("child process %d outlived the killed orchestrator", pid)
		}
	}

	check := exec.Command(os.Args[0], "check", out)
	check.Env = append(os.Environ(), "SHARECHAOS_TEST_MAIN=1")
	var stdout, cerr bytes.Buffer
	check.Stdout, check.Stderr = &stdout, &cerr
	_ = check.Run()
	if code := check.ProcessState.ExitCode(); code != 2 {
		t.Errorf("check of a killed run: exit %d, want 2 (UNKNOWN); stdout:\n%s\nstderr:\n%s", code, stdout.String(), cerr.String())
	}
	for _, name := range []string{"steady/explicit/embedded", "crash-after-commit/explicit/embedded"} {
		if !strings.Contains(stdout.String(), "never finished: "+name) {
			t.Errorf("check does not name unfinished cell %s; stdout:\n%s", name, stdout.String())
		}
	}
}
