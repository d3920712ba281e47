package workerset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"text/template"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/role"
	"github.com/sharechaos/sharechaos/workloads/worker"
)

// Remote runs the workers on other hosts, so a run's load spreads beyond
// this machine. Exec is a shell command, a template of the host, that runs
// the command appended to it on that host with stdin, stdout and stderr
// connected: `ssh -T {{.Host}}`, `docker exec -i {{.Host}}`, `kubectl exec
// -i {{.Host}} --`. Through it a worker is started (Binary in its worker
// role, its config on stdin), signalled and looked at (Binary in its
// worker-control role: nothing but the binary and env need be there). Slot
// i starts on Hosts[(i-1) mod n]; a slot whose worker dies at start moves
// to the next host (a dead host is a crashed worker, not a harness error).
type Remote struct {
	Exec   string
	Binary string
	Hosts  []string
	tmpl   *template.Template
}

// remoteCallTimeout bounds a signal or a look through Exec.
const remoteCallTimeout = 15 * time.Second

// NewRemote checks the settings: a template that renders, at least one
// host, a binary.
func NewRemote(execTmpl, binary string, hosts []string) (*Remote, error) {
	if strings.TrimSpace(execTmpl) == "" {
		return nil, errors.New("--worker-exec is empty")
	}
	if len(hosts) == 0 {
		return nil, errors.New("--worker-exec needs --worker-hosts (the hosts its {{.Host}} names)")
	}
	if binary == "" {
		binary = "sharechaos"
	}
	t, err := template.New("worker-exec").Option("missingkey=error").Parse(execTmpl)
	if err != nil {
		return nil, fmt.Errorf("--worker-exec %q: %w", execTmpl, err)
	}
	r := &Remote{Exec: execTmpl, Binary: binary, Hosts: hosts, tmpl: t}
	if _, err := r.render(hosts[0]); err != nil {
		return nil, err
	}
	return r, nil
}

// ExecData is what Exec's template sees.
type ExecData struct{ Host string }

func (r *Remote) render(host string) (string, error) {
	var b bytes.Buffer
	if err := r.tmpl.Execute(&b, ExecData{Host: host}); err != nil {
		return "", fmt.Errorf("--worker-exec %q: %w", r.Exec, err)
	}
	return b.String(), nil
}

// command is Exec on host running argv there.
func (r *Remote) command(ctx context.Context, host string, argv ...string) (*exec.Cmd, error) {
	prefix, err := r.render(host)
	if err != nil {
		return nil, err
	}
	line := prefix
	for _, a := range argv {
		line += " " + shellWord(a)
	}
	var cmd *exec.Cmd
	if ctx == nil {
		cmd = exec.Command("sh", "-c", line)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", line)
	}
	// Its own process group, gone with the orchestrator (as a local worker).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// workerCommand starts one worker on host: its role in the environment
// (env, which every host has), its config on stdin.
func (r *Remote) workerCommand(host string) (*exec.Cmd, error) {
	return r.command(nil, host, "env", role.EnvVar+"="+worker.Role, r.Binary, "-")
}

// control runs the binary's worker-control role on host (signal, stat).
func (r *Remote) control(host string, args ...string) ([]byte, error) {
	return r.call(host, r.controlArgv(args...)...)
}

// controlArgv is the binary in its worker-control role with args, run
// through env (which every host has).
func (r *Remote) controlArgv(args ...string) []string {
	return append([]string{"env", role.EnvVar + "=" + worker.ControlRole, r.Binary}, args...)
}

// call runs argv on host and returns its output.
func (r *Remote) call(host string, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteCallTimeout)
	defer cancel()
	cmd, err := r.command(ctx, host, argv...)
	if err != nil {
		return nil, err
	}
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("on %s: %s: %w", host, strings.Join(argv, " "), err)
	}
	return out, nil
}

// shellWord quotes s for sh when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// remoteProcess is a worker running on a host: the faults' view of it.
type remoteProcess struct {
	r    *Remote
	host string
	pid  atomic.Int64 // from its Hello; 0 until then
}

func (p *remoteProcess) PID() int { return int(p.pid.Load()) }

func (p *remoteProcess) Stopped() bool {
	pid := p.PID()
	if pid == 0 {
		return false
	}
	out, err := p.r.control(p.host, "stat", strconv.Itoa(pid))
	return err == nil && faults.ProcStatStopped(string(out))
}

func (p *remoteProcess) Signal(sig syscall.Signal) error {
	pid := p.PID()
	if pid == 0 {
		return fmt.Errorf("signal %s: the worker on %s has not said hello yet", sig, p.host)
	}
	_, err := p.r.control(p.host, "signal", strconv.Itoa(int(sig)), strconv.Itoa(pid))
	return err
}

var _ faults.Process = (*remoteProcess)(nil)

// relayHistory reads a remote worker's stdout: its Hello (the pid, into p),
// then its history, each line appended to the local history file at path
// as the worker wrote it. It returns when the stream ends.
func relayHistory(stdout io.Reader, p *remoteProcess, path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("relay history: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	first := true
	for sc.Scan() {
		line := sc.Bytes()
		if first {
			first = false
			var h worker.Hello
			if json.Unmarshal(line, &h) == nil && h.PID > 0 {
				p.pid.Store(int64(h.PID))
				continue
			}
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("relay history: %w", err)
		}
	}
	return sc.Err()
}

// probeLine is what Probe sends each host and wants back.
const probeLine = "sharechaos-worker-host-probe"

// Probe checks every host before a run: Exec reaches it, runs Binary there
// and carries stdin and stdout (the worker-control role echoes a line). A
// host that fails is named with the command and what it printed.
func (r *Remote) Probe(ctx context.Context) error {
	for _, host := range r.Hosts {
		cctx, cancel := context.WithTimeout(ctx, remoteCallTimeout)
		cmd, err := r.command(cctx, host, r.controlArgv("echo")...)
		if err != nil {
			cancel()
			return err
		}
		cmd.Stdin = strings.NewReader(probeLine + "\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		line := cmd.Args[len(cmd.Args)-1]
		switch {
		case err != nil && strings.Contains(stderr.String(), "read stdin"):
			return fmt.Errorf("worker host %s: `%s`: %s got no stdin: does --worker-exec pass it (ssh -T, docker exec -i, kubectl exec -i)?", host, line, r.Binary)
		case err != nil:
			return fmt.Errorf("worker host %s: `%s`: %v: %s", host, line, err, strings.TrimSpace(lastLines(stderr.String(), 3)))
		case strings.TrimSpace(string(out)) != probeLine:
			return fmt.Errorf("worker host %s: `%s` did not echo the probe (got %q): is %s this version of sharechaos there (--worker-binary), and does --worker-exec pass stdin (ssh -T, docker exec -i, kubectl exec -i)?", host, line, strings.TrimSpace(string(out)), r.Binary)
		}
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}
