package external

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/template"
	"time"

	"go.yaml.in/yaml/v3"
)

// HookName names one capability a hooks file can provide.
type HookName string

// The hooks a file may define. Each is a shell command (sh -c) with
// text/template arguments (HookData).
const (
	HookKill       HookName = "kill"       // SIGKILL the broker {{.Node}}
	HookStart      HookName = "start"      // start the killed broker {{.Node}} on its data
	HookRestart    HookName = "restart"    // restart the running broker {{.Node}} gracefully
	HookPause      HookName = "pause"      // freeze the broker {{.Node}} (SIGSTOP, docker pause)
	HookResume     HookName = "resume"     // thaw it
	HookIsolate    HookName = "isolate"    // cut every link of {{.Node}}: clients and brokers
	HookDisconnect HookName = "disconnect" // cut the links between brokers {{.From}} and {{.To}}
	HookLatency    HookName = "latency"    // delay every link by {{.Latency}} ± {{.Jitter}}
	HookHeal       HookName = "heal"       // undo every isolate, disconnect and latency
)

// hookNames is every hook, in the order docs list them.
var hookNames = []HookName{HookKill, HookStart, HookRestart, HookPause, HookResume, HookIsolate, HookDisconnect, HookLatency, HookHeal}

// HookData is what a hook's template sees.
type HookData struct {
	// Node is the broker's node id; Host and Port where the cluster's
	// metadata says it listens.
	Node int32
	Host string
	Port int32
	// From and To are the two brokers of a disconnect.
	From, To int32
	// Latency and Jitter as Go durations ("150ms"), and in whole
	// milliseconds (LatencyMs, JitterMs) for tools that want numbers.
	Latency, Jitter     string
	LatencyMs, JitterMs int64
}

// Hook is one command of a hooks file.
type Hook struct {
	Name    HookName
	Command string
	Timeout time.Duration
	// Line is where the hook is in its file, for errors.
	Line int
	tmpl *template.Template
}

// Render is the hook's command line for d.
func (h Hook) Render(d HookData) (string, error) {
	var b bytes.Buffer
	if err := h.tmpl.Execute(&b, d); err != nil {
		return "", fmt.Errorf("render hook %s: %w", h.Name, err)
	}
	return b.String(), nil
}

// Hooks is a parsed hooks file.
type Hooks struct {
	// File is the path it was read from.
	File string
	// Toxiproxy is the HTTP API of a toxiproxy in the clients' path whose
	// proxies follow the docker layout's names (client-N, internal-A-B,
	// controller-A-B), for the Kafka-protocol toxic; "" when there is none.
	// The Cluster checks it before the first fault that needs it (links.go).
	Toxiproxy string
	// Hooks by name; a capability without its hooks is N/A.
	Hooks map[HookName]Hook
	// UpTimeout bounds the wait for a started broker to answer.
	UpTimeout time.Duration
}

// Has says whether every hook named is defined.
func (h *Hooks) Has(names ...HookName) bool {
	if h == nil {
		return false
	}
	for _, n := range names {
		if _, ok := h.Hooks[n]; !ok {
			return false
		}
	}
	return true
}

// Defaults of a hooks file.
const (
	DefaultHookTimeout = 60 * time.Second
	DefaultUpTimeout   = 3 * time.Minute
)

// FileError names the file, line and field of what is wrong in a hooks file.
type FileError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// LoadHooks reads and checks a hooks file (--fault-hooks):
//
//	timeout: 60s                     # default per hook
//	up_timeout: 3m                   # a started broker must answer within it
//	toxiproxy: http://127.0.0.1:8474 # optional
//	hooks:
//	  kill: docker kill -s KILL broker-{{.Node}}
//	  start: {run: "docker start broker-{{.Node}}", timeout: 30s}
func LoadHooks(path string) (*Hooks, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read fault hooks: %w", err)
	}
	return parseHooks(path, b)
}

func parseHooks(path string, b []byte) (*Hooks, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("parse fault hooks %s: %w", path, err)
	}
	ferr := func(n *yaml.Node, field, msg string, args ...any) error {
		return &FileError{File: path, Line: n.Line, Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	h := &Hooks{File: path, Hooks: map[HookName]Hook{}, UpTimeout: DefaultUpTimeout}
	if len(doc.Content) == 0 {
		return nil, &FileError{File: path, Line: 1, Field: "hooks", Msg: "empty file: want a mapping with hooks:"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, ferr(root, "(top)", "want a mapping")
	}
	timeout := DefaultHookTimeout
	var hooksNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "timeout":
			d, err := duration(v)
			if err != nil {
				return nil, ferr(v, "timeout", "%v", err)
			}
			timeout = d
		case "up_timeout":
			d, err := duration(v)
			if err != nil {
				return nil, ferr(v, "up_timeout", "%v", err)
			}
			h.UpTimeout = d
		case "toxiproxy":
			if v.Kind != yaml.ScalarNode || !strings.HasPrefix(v.Value, "http") {
				return nil, ferr(v, "toxiproxy", "want toxiproxy's HTTP API address, e.g. http://127.0.0.1:8474")
			}
			h.Toxiproxy = strings.TrimRight(v.Value, "/")
		case "hooks":
			if v.Kind != yaml.MappingNode {
				return nil, ferr(v, "hooks", "want a mapping of hook name to command")
			}
			hooksNode = v
		default:
			return nil, ferr(k, k.Value, "unknown field (want timeout, up_timeout, toxiproxy, hooks)")
		}
	}
	if hooksNode == nil {
		return nil, ferr(root, "hooks", "missing")
	}
	for i := 0; i+1 < len(hooksNode.Content); i += 2 {
		k, v := hooksNode.Content[i], hooksNode.Content[i+1]
		name := HookName(k.Value)
		field := "hooks." + k.Value
		if !slices.Contains(hookNames, name) {
			return nil, ferr(k, field, "unknown hook (want one of %v)", hookNames)
		}
		if _, dup := h.Hooks[name]; dup {
			return nil, ferr(k, field, "given twice")
		}
		hk := Hook{Name: name, Timeout: timeout, Line: v.Line}
		switch v.Kind {
		case yaml.ScalarNode:
			hk.Command = v.Value
		case yaml.MappingNode:
			for j := 0; j+1 < len(v.Content); j += 2 {
				kk, vv := v.Content[j], v.Content[j+1]
				switch kk.Value {
				case "run":
					hk.Command = vv.Value
				case "timeout":
					d, err := duration(vv)
					if err != nil {
						return nil, ferr(vv, field+".timeout", "%v", err)
					}
					hk.Timeout = d
				default:
					return nil, ferr(kk, field+"."+kk.Value, "unknown field (want run, timeout)")
				}
			}
		default:
			return nil, ferr(v, field, "want a command or {run: ..., timeout: ...}")
		}
		if strings.TrimSpace(hk.Command) == "" {
			return nil, ferr(v, field, "empty command")
		}
		t, err := template.New(string(name)).Option("missingkey=error").Parse(hk.Command)
		if err != nil {
			return nil, ferr(v, field, "template: %v", err)
		}
		// Render once with sample data: a misspelt {{.Nodes}} fails here,
		// not in the middle of a fault.
		if err := t.Execute(&bytes.Buffer{}, HookData{}); err != nil {
			return nil, ferr(v, field, "template: %v", err)
		}
		hk.tmpl = t
		h.Hooks[name] = hk
	}
	if h.Has(HookPause) != h.Has(HookResume) {
		return nil, ferr(hooksNode, "hooks", "pause and resume go together")
	}
	if h.Has(HookKill) && !h.Has(HookStart) && !h.Has(HookRestart) {
		return nil, ferr(hooksNode, "hooks.kill", "a killed broker must come back: add start (or restart)")
	}
	if (h.Has(HookIsolate) || h.Has(HookDisconnect) || h.Has(HookLatency)) && !h.Has(HookHeal) {
		return nil, ferr(hooksNode, "hooks.heal", "isolate, disconnect and latency need heal to undo them")
	}
	return h, nil
}

func duration(n *yaml.Node) (time.Duration, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want a duration like 30s")
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		return 0, fmt.Errorf("want a duration like 30s: %w", err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("want a positive duration, got %s", n.Value)
	}
	return d, nil
}
