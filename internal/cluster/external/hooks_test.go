package external

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseHooks(t *testing.T) {
	h, err := parseHooks("h.yaml", []byte(`
timeout: 20s
toxiproxy: http://127.0.0.1:8474/
hooks:
  kill: docker kill -s KILL b{{.Node}}
  start: {run: "docker start b{{.Node}}", timeout: 5s}
  latency: tc {{.LatencyMs}} {{.JitterMs}}
  heal: echo heal
`))
	if err != nil {
		t.Fatal(err)
	}
	if h.Toxiproxy != "http://127.0.0.1:8474" || h.Hooks[HookKill].Timeout != 20*time.Second || h.Hooks[HookStart].Timeout != 5*time.Second {
		t.Fatalf("got %+v", h)
	}
	cmd, err := h.Hooks[HookLatency].Render(HookData{LatencyMs: 150, JitterMs: 20})
	if err != nil || cmd != "tc 150 20" {
		t.Fatalf("render: %q %v", cmd, err)
	}
}

func TestParseHooksErrorsNameFileLineField(t *testing.T) {
	for name, tc := range map[string]struct {
		text  string
		line  int
		field string
	}{
		"unknown hook":       {"hooks:\n  kill: x\n  start: y\n  explode: z\n", 4, "hooks.explode"},
		"unknown field":      {"timeout: 3s\nhookz: {}\n", 2, "hookz"},
		"bad timeout":        {"hooks:\n  kill: {run: x, timeout: soon}\n  start: y\n", 2, "hooks.kill.timeout"},
		"bad template":       {"hooks:\n  kill: docker kill {{.Node\n  start: y\n", 2, "hooks.kill"},
		"misspelt field":     {"hooks:\n  kill: docker kill {{.Nodes}}\n  start: y\n", 2, "hooks.kill"},
		"kill without start": {"hooks:\n  kill: x\n", 2, "hooks.kill"},
		"isolate no heal":    {"hooks:\n  isolate: x\n", 2, "hooks.heal"},
		"pause alone":        {"hooks:\n  pause: x\n", 2, "hooks"},
		"no hooks":           {"timeout: 3s\n", 1, "hooks"},
		"empty command":      {"hooks:\n  kill: ''\n  start: y\n", 2, "hooks.kill"},
	} {
		_, err := parseHooks("h.yaml", []byte(tc.text))
		var fe *FileError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want a FileError", name, err)
			continue
		}
		if fe.File != "h.yaml" || fe.Line != tc.line || fe.Field != tc.field {
			t.Errorf("%s: got %s:%d %s (%s), want line %d field %s", name, fe.File, fe.Line, fe.Field, fe.Msg, tc.line, tc.field)
		}
	}
}

func TestLoadHooksMissingFile(t *testing.T) {
	_, err := LoadHooks(filepath.Join(t.TempDir(), "none.yaml"))
	if err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Fatalf("got %v", err)
	}
}

func hooksOf(t *testing.T, text string) *Hooks {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hooks.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := LoadHooks(p)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestFailingHookNamesItAndItsOutput(t *testing.T) {
	h := hooksOf(t, "hooks:\n  kill: echo cannot reach host-{{.Node}} >&2; exit 3\n  start: 'true'\n")
	_, _, err := runHook(context.Background(), h.Hooks[HookKill], HookData{Node: 2})
	var he *HookError
	if !errors.As(err, &he) || he.Hook != HookKill || !strings.Contains(err.Error(), "cannot reach host-2") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("got %v", err)
	}
}

func TestHookOutlivingItsTimeoutIsKilled(t *testing.T) {
	h := hooksOf(t, "hooks:\n  kill: {run: 'echo started; sleep 30', timeout: 300ms}\n  start: 'true'\n")
	began := time.Now()
	_, _, err := runHook(context.Background(), h.Hooks[HookKill], HookData{Node: 1})
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("the hook ran %s", took)
	}
	if err == nil || !strings.Contains(err.Error(), "outlived its timeout 300ms") || !strings.Contains(err.Error(), "started") {
		t.Fatalf("got %v", err)
	}
}

// TestExampleHooksParse loads every ready-made hooks file of examples/hooks:
// the ones not run here are at least valid.
func TestExampleHooksParse(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/hooks/*.yaml")
	if len(files) < 3 {
		t.Fatalf("found %d example hooks files", len(files))
	}
	for _, f := range files {
		h, err := LoadHooks(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		t.Logf("%s: %d hooks, toxiproxy %q", filepath.Base(f), len(h.Hooks), h.Toxiproxy)
	}
}
