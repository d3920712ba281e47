// Package role starts the child processes of the suite (brokers of the embedded
// backend, workers) as re-executions of the running binary. The child learns its
// role from the environment, not from argv, so the same mechanism works for the
// sharechaos binary and for a `go test` binary (whose TestMain dispatches too).
package role

import (
	"os"
	"os/exec"
	"syscall"
)

// EnvVar carries the role name to the child.
const EnvVar = "SHARECHAOS_ROLE"

// Current is the role this process was started in, "" for the main process.
func Current() string { return os.Getenv(EnvVar) }

// Command prepares a child of the given role: the current executable with args,
// in its own process group (a terminal's Ctrl-C reaches only the orchestrator,
// which then stops children in order), and killed by the kernel if the
// orchestrator dies first (Pdeathsig), so no child outlives a run.
func Command(name string, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), EnvVar+"="+name)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}
