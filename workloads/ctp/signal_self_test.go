package ctp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// signalSelfChild is set in the child process the test re-executes: it
// signals itself and prints a line that must never appear before the signal
// acts.
const signalSelfChild = "SHARECHAOS_SIGNAL_SELF_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(signalSelfChild) {
	case "kill":
		signalSelf(syscall.SIGKILL)
		fmt.Println("went on after SIGKILL")
		os.Exit(0)
	case "stop":
		signalSelf(syscall.SIGSTOP)
		fmt.Println("resumed")
		os.Exit(0)
	case "term":
		// As the worker role's main: SIGTERM cancels the loop's context.
		ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer cancel()
		signalSelf(syscall.SIGTERM)
		select {
		case <-ctx.Done():
			fmt.Println("stopping")
		case <-time.After(5 * time.Second):
			fmt.Println("SIGTERM never cancelled the context")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Must die by SIGKILL without running a line after the call.
func TestSignalSelfKill(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), signalSelfChild+"=kill")
	out, err := cmd.Output()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended %v (%v), want killed by SIGKILL", cmd.ProcessState, err)
	}
	if len(out) != 0 {
		t.Errorf("the child went on after signalling itself: %q", out)
	}
}

// Must stop before the next line, and go on once continued.
func TestSignalSelfStop(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), signalSelfChild+"=stop")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WUNTRACED, nil); err != nil || !ws.Stopped() {
		_ = cmd.Process.Kill()
		t.Fatalf("child not stopped: %v %v", ws, err)
	}
	_ = r.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	buf := make([]byte, 64)
	if n, _ := r.Read(buf); n != 0 {
		t.Errorf("the child wrote %q while it should have been stopped", buf[:n])
	}
	_ = cmd.Process.Signal(syscall.SIGCONT)
	_ = r.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, _ := r.Read(buf)
	if got := string(buf[:n]); got != "resumed\n" {
		t.Errorf("after SIGCONT the child wrote %q, want \"resumed\"", got)
	}
	_, _ = syscall.Wait4(cmd.Process.Pid, &ws, 0, nil)
}

// ActionTerm's signal must reach the process's handler (the graceful stop
// path), not end the process the default way: the child exits 0 itself.
func TestSignalSelfTerm(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), signalSelfChild+"=term")
	out, err := cmd.Output()
	if err != nil || string(out) != "stopping\n" {
		t.Fatalf("child ended %v (%v) writing %q, want exit 0 writing \"stopping\"", cmd.ProcessState, err, out)
	}
}
