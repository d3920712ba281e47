package external

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHooksLogRecordsEachRunAsRendered: the hooks log names the hook, its
// broker, the command line with the node filled in, how it ended and what
// it printed, for a hook that worked and for one that failed; without a
// path nothing is written.
func TestHooksLogRecordsEachRunAsRendered(t *testing.T) {
	h := hooksOf(t, "hooks:\n  kill: echo killed kafka-{{.Node}}\n  start: echo no route to kafka-{{.Node}} >&2; exit 5\n  disconnect: echo cut {{.From}}-{{.To}}\n  heal: 'true'\n")
	path := filepath.Join(t.TempDir(), HooksLogFile)
	l := &hooksLog{path: path}
	for _, c := range []struct {
		name HookName
		d    HookData
	}{{HookKill, HookData{Node: 2}}, {HookStart, HookData{Node: 2}}, {HookDisconnect, HookData{From: 1, To: 3}}} {
		began := time.Now()
		command, out, err := runHook(context.Background(), h.Hooks[c.name], c.d)
		if err := l.record(began, c.name, c.d, command, out, err); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		" kill node=2 took=", " ok\n  command: echo killed kafka-2\n  output: killed kafka-2\n",
		" start node=2 took=", " failed: fault hook start (echo no route to kafka-2 >&2; exit 5): exit status 5",
		"  output: no route to kafka-2\n",
		" disconnect from=1 to=3 took=", "  command: echo cut 1-3\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("hooks log lacks %q:\n%s", want, text)
		}
	}
	if err := (&hooksLog{}).record(time.Now(), HookKill, HookData{Node: 1}, "x", "", nil); err != nil {
		t.Fatalf("a log without a path: %v", err)
	}
}
