package external

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// HooksLogFile is the run directory's record of every fault hook that ran:
// when, which hook for which broker, the command line as rendered, how long
// it took, how it ended and what it printed. It is how a run shows that its
// faults acted through the user's commands (ssh, kubectl, docker), and what
// to read when one did not.
const HooksLogFile = "hooks.log"

// hooksLog appends to a run's hooks.log; the zero value logs nothing.
type hooksLog struct {
	mu   sync.Mutex
	path string
}

// record appends one hook run. A log that cannot be written is a warning
// in the run's own log, never a failed fault.
func (l *hooksLog) record(began time.Time, name HookName, d HookData, command, output string, err error) error {
	if l == nil || l.path == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ferr := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if ferr != nil {
		return ferr
	}
	defer f.Close()
	target := ""
	switch name {
	case HookDisconnect:
		target = fmt.Sprintf(" from=%d to=%d", d.From, d.To)
	case HookLatency:
		target = fmt.Sprintf(" latency=%s jitter=%s", d.Latency, d.Jitter)
	case HookHeal:
	default:
		target = fmt.Sprintf(" node=%d", d.Node)
	}
	result := "ok"
	if err != nil {
		result = "failed: " + err.Error()
	}
	out := strings.TrimSpace(output)
	if out != "" {
		out = "\n  output: " + strings.ReplaceAll(out, "\n", "\n          ")
	}
	_, werr := fmt.Fprintf(f, "%s %s%s took=%s %s\n  command: %s%s\n", began.UTC().Format(time.RFC3339Nano), name, target,
		time.Since(began).Round(time.Millisecond), result, strings.ReplaceAll(command, "\n", " "), out)
	return werr
}
