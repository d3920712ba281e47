package workerset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewRemoteChecksItsSettings(t *testing.T) {
	for _, tc := range []struct {
		exec  string
		hosts []string
		want  string
	}{
		{"", []string{"a"}, "--worker-exec is empty"},
		{"ssh {{.Host}}", nil, "needs --worker-hosts"},
		{"ssh {{.Host", []string{"a"}, "--worker-exec"},
		{"ssh {{.Node}}", []string{"a"}, "Node"},
	} {
		if _, err := NewRemote(tc.exec, "", tc.hosts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %v: want an error with %q, got %v", tc.exec, tc.hosts, tc.want, err)
		}
	}
	r, err := NewRemote("ssh -T {{.Host}}", "", []string{"w1"})
	if err != nil || r.Binary != "sharechaos" {
		t.Fatalf("%+v, %v", r, err)
	}
	cmd, err := r.workerCommand("w1")
	if err != nil {
		t.Fatal(err)
	}
	if got := cmd.Args[len(cmd.Args)-1]; got != "ssh -T w1 env SHARECHAOS_ROLE=worker sharechaos -" {
		t.Errorf("worker command %q", got)
	}
}

// The relay takes the Hello's pid and appends every other line to the
// history file as it came.
func TestRelayHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w1.1.jsonl")
	in := `{"pid":4242}` + "\n" + `{"f":"poll"}` + "\n" + `{"f":"commit"}` + "\n"
	p := &remoteProcess{}
	if err := relayHistory(strings.NewReader(in), p, path); err != nil {
		t.Fatal(err)
	}
	if p.PID() != 4242 {
		t.Errorf("pid %d, want the hello's 4242", p.PID())
	}
	b, _ := os.ReadFile(path)
	if string(b) != `{"f":"poll"}`+"\n"+`{"f":"commit"}`+"\n" {
		t.Errorf("history %q", b)
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"sharechaos": "sharechaos", "SHARECHAOS_ROLE=worker": "SHARECHAOS_ROLE=worker", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %q, want %q", in, got, want)
		}
	}
}

// Probe names the host and the command of a host that cannot run a worker:
// a command that fails, and one that runs but does not echo (not our binary,
// or no stdin).
func TestProbeNamesTheHost(t *testing.T) {
	fails, _ := NewRemote("false {{.Host}}", "", []string{"h1"})
	if err := fails.Probe(context.Background()); err == nil || !strings.Contains(err.Error(), "worker host h1") || !strings.Contains(err.Error(), "false h1") {
		t.Errorf("a failing command: %v", err)
	}
	mute, _ := NewRemote("env X={{.Host}}", "/bin/true", []string{"h1", "h2"})
	if err := mute.Probe(context.Background()); err == nil || !strings.Contains(err.Error(), "did not echo the probe") || !strings.Contains(err.Error(), "/bin/true") {
		t.Errorf("a binary that is not ours: %v", err)
	}
}
