package embedded

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// killWait bounds the wait for a SIGKILLed child to be reaped.
const killWait = 10 * time.Second

// child is one run of the broker process: started by startChild, ended by
// stop. A graceful restart is a new child on the same arguments.
type child struct {
	cmd    *exec.Cmd
	ready  chan string   // receives the advertised addresses once it listens
	exited chan struct{} // closed once the process has been reaped
	// waitErr is cmd.Wait's result, readable after exited is closed.
	waitErr error
}

// startChild starts the broker child (see brokerCommand), its stderr
// appended to logPath.
func startChild(args brokerArgs, logPath string) (*child, error) {
	cmd, err := brokerCommand(args)
	if err != nil {
		return nil, fmt.Errorf("prepare broker child: %w", err)
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open broker log: %w", err)
	}
	defer logFile.Close() // the child holds its own descriptor
	fmt.Fprintf(logFile, "--- %s embedded: starting broker child: %s\n",
		time.Now().Format(time.RFC3339Nano), strings.Join(cmd.Args, " "))

	// A pipe of our own rather than cmd.StdoutPipe: Wait must not depend on
	// whether anyone still reads stdout.
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create broker stdout pipe: %w", err)
	}
	cmd.Stdout = stdoutW
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		stdoutR.Close()
		stdoutW.Close()
		return nil, fmt.Errorf("start broker child: %w", err)
	}
	stdoutW.Close()

	c := &child{cmd: cmd, ready: make(chan string, 1), exited: make(chan struct{})}
	go c.readStdout(stdoutR)
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

func (c *child) readStdout(r io.ReadCloser) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if addrs, ok := strings.CutPrefix(sc.Text(), readyPrefix); ok {
			select {
			case c.ready <- addrs:
			default:
			}
		}
	}
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// waitReady returns the advertised addresses once the child listens, or an
// error if it exits first or ctx ends.
func (c *child) waitReady(ctx context.Context) (string, error) {
	select {
	case addrs := <-c.ready:
		return addrs, nil
	case <-c.exited:
		// It may have printed the line just before exiting; a child
		// that is gone is not ready either way.
		return "", fmt.Errorf("broker child exited before it was ready: %v", c.waitErr)
	case <-ctx.Done():
		return "", fmt.Errorf("wait for broker child to listen: %w", context.Cause(ctx))
	}
}

// stop asks the child to close kfake gracefully (SIGTERM) and waits up to
// timeout or until ctx ends; then it SIGKILLs the child's process group. An
// error means the stop was not graceful, so the data directory may miss what
// a graceful close would have saved.
func (c *child) stop(ctx context.Context, timeout time.Duration) error {
	select {
	case <-c.exited:
		return c.exitError()
	default:
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return errors.Join(fmt.Errorf("signal broker child: %w", err), c.kill())
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-c.exited:
		return c.exitError()
	case <-timer.C:
		return errors.Join(fmt.Errorf("stop broker child: no graceful exit within %v, killed", timeout), c.kill())
	case <-ctx.Done():
		return errors.Join(fmt.Errorf("stop broker child: %w before a graceful exit, killed", context.Cause(ctx)), c.kill())
	}
}

// kill SIGKILLs the child's process group (the child leads it: role.Command
// sets Setpgid) and waits until it is reaped.
func (c *child) kill() error {
	if err := syscall.Kill(-c.pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill broker child: %w", err)
	}
	select {
	case <-c.exited:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("kill broker child: pid %d not reaped within %v", c.pid(), killWait)
	}
}

// exitError reports a graceful stop that did not end with exit status 0.
func (c *child) exitError() error {
	if c.waitErr != nil {
		return fmt.Errorf("broker child exited: %w", c.waitErr)
	}
	return nil
}

// logTail returns the last lines of the log at path, for error messages.
func logTail(path string, maxBytes int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no broker log: %v)", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(broker log unreadable: %v)", err)
	}
	off := max(st.Size()-maxBytes, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Sprintf("(broker log unreadable: %v)", err)
	}
	s := string(b)
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimRight(s, "\n")
}
