package faults

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Process is one worker's process as a worker fault acts on it, wherever it
// runs: a child of the orchestrator (LocalProcess), or on a worker host
// reached through a command (suites/workerset's remote workers).
type Process interface {
	// PID is its process id on its host.
	PID() int
	// Stopped reports whether it is stopped by a signal (state T).
	Stopped() bool
	// Signal sends it sig.
	Signal(sig syscall.Signal) error
}

// LocalProcess is a process on this machine.
type LocalProcess int

func (p LocalProcess) PID() int { return int(p) }

func (p LocalProcess) Stopped() bool { return ProcStatStopped(p.stat()) }

func (p LocalProcess) Signal(sig syscall.Signal) error { return syscall.Kill(int(p), sig) }

func (p LocalProcess) stat() string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(p)) + "/stat")
	if err != nil {
		return ""
	}
	return string(b)
}

// ProcStatStopped reports whether a /proc/PID/stat line says the process is
// stopped by a signal (its state, after the command name in parentheses,
// is T).
func ProcStatStopped(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(stat[i+1:]), "T")
}
