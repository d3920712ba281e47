package worker

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// ControlRole is the child role through which the orchestrator acts on a
// worker on another host (suites/workerset's Remote): the same binary, run
// there through the same command, so nothing else (a kill binary, a shell
// that keeps its quoting across ssh) need be on the host.
//
//	signal SIG PID   send signal number SIG to PID
//	stat PID         print /proc/PID/stat
//	echo             copy the first line of stdin to stdout (the
//	                 orchestrator's probe of a host: the command runs the
//	                 binary there and carries stdin and stdout)
const ControlRole = "worker-control"

// ControlMain runs one control command; 64 for a bad one, 1 when it failed.
func ControlMain(args []string) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "worker-control: "+format+"\n", a...)
		return code
	}
	switch {
	case len(args) == 3 && args[0] == "signal":
		sig, err1 := strconv.Atoi(args[1])
		pid, err2 := strconv.Atoi(args[2])
		if err1 != nil || err2 != nil || sig < 0 || pid <= 0 {
			return fail(verdict.ExitUsage, "signal %s %s: want a signal number and a pid", args[1], args[2])
		}
		if err := syscall.Kill(pid, syscall.Signal(sig)); err != nil {
			return fail(1, "signal %d to %d: %v", sig, pid, err)
		}
		return 0
	case len(args) == 1 && args[0] == "echo":
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil {
			return fail(1, "echo: read stdin: %v", err)
		}
		_, _ = os.Stdout.WriteString(line)
		return 0
	case len(args) == 2 && args[0] == "stat":
		pid, err := strconv.Atoi(args[1])
		if err != nil || pid <= 0 {
			return fail(verdict.ExitUsage, "stat %s: want a pid", args[1])
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return fail(1, "%v", err)
		}
		_, _ = os.Stdout.Write(b)
		return 0
	}
	return fail(verdict.ExitUsage, "want: signal SIG PID | stat PID | echo, got %q", args)
}
