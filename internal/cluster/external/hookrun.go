package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// HookError is a hook that failed or outlived its timeout: it names the hook,
// the command it ran and what it printed, so the cell's HARNESS-ERROR says
// what to fix.
type HookError struct {
	Hook    HookName
	Command string
	Output  string
	Err     error
}

func (e *HookError) Error() string {
	out := strings.TrimSpace(e.Output)
	if out == "" {
		out = "(no output)"
	}
	return fmt.Sprintf("fault hook %s (%s): %v; output: %s", e.Hook, e.Command, e.Err, out)
}

func (e *HookError) Unwrap() error { return e.Err }

// maxOutput is how much of a hook's output an error keeps (the end of it).
const maxOutput = 2048

// runHook runs one hook under sh -c within its timeout and returns the
// command line it ran and what it printed. The command runs in
// a process group of its own, so a timeout kills what it started too (a
// shell's children would otherwise keep the pipes open and the wait hanging).
func runHook(ctx context.Context, h Hook, d HookData) (cmdline, output string, err error) {
	cmdline, err = h.Render(d)
	if err != nil {
		return h.Command, "", &HookError{Hook: h.Name, Command: h.Command, Err: err}
	}
	hctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(hctx, "sh", "-c", cmdline)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	text := out.String()
	if len(text) > maxOutput {
		text = "..." + text[len(text)-maxOutput:]
	}
	switch {
	case err == nil:
		return cmdline, text, nil
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		return cmdline, text, &HookError{Hook: h.Name, Command: cmdline, Output: text, Err: fmt.Errorf("outlived its timeout %s", h.Timeout)}
	case ctx.Err() != nil:
		return cmdline, text, &HookError{Hook: h.Name, Command: cmdline, Output: text, Err: ctx.Err()}
	default:
		return cmdline, text, &HookError{Hook: h.Name, Command: cmdline, Output: text, Err: err}
	}
}
