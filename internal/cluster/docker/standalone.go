package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// A standalone cluster (`sharechaos cluster up`) outlives the process that
// started it: its objects carry LabelStandalone (the run id) in place of
// LabelRun and no owner pid, so no RemoveStale, of this version or an older
// one, takes them for a dead run's leftovers; and its state is a directory that `cluster fault` and `cluster down` act
// on from other processes, by container id and through toxiproxy's API.
const LabelStandalone = "sharechaos.standalone"

// Files of a standalone cluster's directory.
const (
	StateFile     = "cluster.json"
	BootstrapFile = "bootstrap"
	HooksFile     = "hooks.yaml"
	// ClientConfigFile and TLSDir: a secured cluster's client settings
	// (--client-config) and the files they name.
	ClientConfigFile = "client.properties"
	TLSDir           = "tls"
)

// labels are the labels of one object of this cluster.
func (c *Cluster) labels(role string, node int) map[string]string {
	if c.opts.Standalone {
		return standaloneLabels(c.opts.RunID, role, node)
	}
	return runLabels(c.opts.RunID, role, node)
}

// standaloneLabels are a run's labels with LabelStandalone in place of the
// run and its owner process: nothing removes them but `cluster down`.
func standaloneLabels(runID, role string, node int) map[string]string {
	l := runLabels(runID, role, node)
	delete(l, LabelRun)
	delete(l, LabelPID)
	delete(l, LabelPIDStart)
	l[LabelStandalone] = runID
	return l
}

// runLabel is the label that finds this cluster's objects.
func (c *Cluster) runLabel() string {
	if c.opts.Standalone {
		return LabelStandalone
	}
	return LabelRun
}

// Standalone is what a standalone cluster's directory records.
type Standalone struct {
	RunID      string      `json:"run_id"`
	KafkaImage string      `json:"kafka_image"`
	Bootstrap  []string    `json:"bootstrap"`
	ProxyAPI   string      `json:"toxiproxy_api"`
	Links      []proxyLink `json:"links"`
	// Containers are the brokers' container ids, index node-1.
	Containers []string `json:"containers"`
	// ClientConfig is the client.properties of a secured cluster ("":
	// PLAINTEXT).
	ClientConfig string `json:"client_config,omitempty"`
	// Layout is LayoutSSHHosts for an ssh hosts environment ("": brokers
	// behind toxiproxy). Its Containers are the hosts, brokers first; its
	// faults are the hooks' ssh commands, not `cluster fault`.
	Layout      string   `json:"layout,omitempty"`
	SSHConfig   string   `json:"ssh_config,omitempty"`
	WorkerHosts []string `json:"worker_hosts,omitempty"`
}

// Up starts a standalone cluster and writes dir: cluster.json, bootstrap
// (HOST:PORT,...) and hooks.yaml, whose hooks call `self cluster fault dir
// ...`. It returns with the containers running; Down removes them.
func Up(ctx context.Context, opts Options, dir, self string) (Standalone, error) {
	opts.Standalone = true
	if opts.Security == SecuritySASLSSL {
		abs, err := filepath.Abs(filepath.Join(dir, TLSDir))
		if err != nil {
			return Standalone{}, fmt.Errorf("start standalone cluster: %w", err)
		}
		opts.SecurityDir = abs
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err == nil {
		return Standalone{}, fmt.Errorf("start standalone cluster: %s already holds a cluster (cluster down %s first)", dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Standalone{}, fmt.Errorf("start standalone cluster: %w", err)
	}
	c, err := Start(ctx, opts)
	if err != nil {
		if c != nil {
			_ = c.Close(context.WithoutCancel(ctx))
		}
		return Standalone{}, err
	}
	st := Standalone{RunID: c.opts.RunID, KafkaImage: c.opts.KafkaImage, Bootstrap: c.Bootstrap(),
		ProxyAPI: c.ProxyAPI(), Links: c.links}
	for _, b := range c.brokers {
		st.Containers = append(st.Containers, b.GetContainerID())
	}
	if c.security != nil {
		st.ClientConfig = filepath.Join(dir, ClientConfigFile)
		if err := os.WriteFile(st.ClientConfig, []byte(c.security.clientProperties()), 0o600); err != nil {
			_ = c.Close(context.WithoutCancel(ctx))
			return Standalone{}, fmt.Errorf("write standalone cluster state: %w", err)
		}
	}
	if err := writeStandalone(dir, st, standaloneHooks(dir, st, self), nil); err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		return Standalone{}, err
	}
	// Let go without removing anything.
	c.admin.Close()
	_ = c.eng.Close()
	return st, nil
}

// writeStandalone writes a standalone cluster's directory: cluster.json,
// bootstrap, hooks.yaml and the layout's own files (extra, by name).
func writeStandalone(dir string, st Standalone, hooks string, extra map[string]string) error {
	b, _ := json.MarshalIndent(st, "", "  ")
	files := map[string]string{
		StateFile:     string(b) + "\n",
		BootstrapFile: strings.Join(st.Bootstrap, ",") + "\n",
		HooksFile:     hooks,
	}
	maps.Copy(files, extra)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return fmt.Errorf("write standalone cluster state: %w", err)
		}
	}
	return nil
}

// standaloneHooks is the hooks file of a standalone cluster: every hook is
// a `cluster fault` subcommand of this binary.
func standaloneHooks(dir string, st Standalone, self string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	call := shellQuote(self) + " cluster fault " + shellQuote(abs) + " "
	var b strings.Builder
	fmt.Fprintf(&b, "# Fault hooks of the standalone docker cluster in %s (sharechaos cluster up).\n", abs)
	client := ""
	if st.ClientConfig != "" {
		client = fmt.Sprintf(" --client-config %s/%s", abs, ClientConfigFile)
	}
	fmt.Fprintf(&b, "# Run: sharechaos run --backend external --bootstrap \"$(cat %s/bootstrap)\" --fault-hooks %s/hooks.yaml%s\n", abs, abs, client)
	b.WriteString("timeout: 90s\nup_timeout: 3m\n")
	fmt.Fprintf(&b, "toxiproxy: %s\nhooks:\n", st.ProxyAPI)
	for _, h := range []struct{ name, args string }{
		{"kill", "kill {{.Node}}"}, {"start", "start {{.Node}}"}, {"restart", "restart {{.Node}}"},
		{"pause", "pause {{.Node}}"}, {"resume", "resume {{.Node}}"},
		{"isolate", "isolate {{.Node}}"}, {"disconnect", "disconnect {{.From}} {{.To}}"},
		{"latency", "latency {{.Latency}} {{.Jitter}}"}, {"heal", "heal"},
	} {
		fmt.Fprintf(&b, "  %s: %s\n", h.name, yamlQuote(call+h.args))
	}
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func yamlQuote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// LoadStandalone reads a standalone cluster's directory.
func LoadStandalone(dir string) (Standalone, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		return Standalone{}, fmt.Errorf("read standalone cluster: %w", err)
	}
	var st Standalone
	if err := json.Unmarshal(b, &st); err != nil {
		return Standalone{}, fmt.Errorf("read standalone cluster %s: %w", dir, err)
	}
	return st, nil
}

// Down removes a standalone cluster's containers and networks and its state
// files (the directory stays).
func Down(ctx context.Context, dir string) error {
	st, err := LoadStandalone(dir)
	if err != nil {
		return err
	}
	setTestcontainersEnv()
	eng, err := newEngine(ctx)
	if err != nil {
		return fmt.Errorf("remove standalone cluster: %w", err)
	}
	defer eng.Close()
	if err := eng.removeLabelled(ctx, LabelStandalone, st.RunID); err != nil {
		return fmt.Errorf("remove standalone cluster %s: %w", st.RunID, err)
	}
	for _, f := range []string{StateFile, BootstrapFile, HooksFile, ClientConfigFile, TLSDir} {
		_ = os.RemoveAll(filepath.Join(dir, f))
	}
	if st.Layout == LayoutSSHHosts {
		removeSSHHostFiles(dir)
	}
	return nil
}

// Fault acts on a standalone cluster from another process: the hooks of its
// hooks.yaml. Actions: kill N, start N, restart N, pause N, resume N,
// isolate N, disconnect A B, latency LATENCY JITTER (Go durations), heal.
// start and restart return once the container runs; the external backend
// waits for the broker to answer.
func Fault(ctx context.Context, dir string, args []string) error {
	if len(args) == 0 {
		return errors.New("cluster fault: want an action (kill, start, restart, pause, resume, isolate, disconnect, latency, heal)")
	}
	st, err := LoadStandalone(dir)
	if err != nil {
		return err
	}
	if st.Layout == LayoutSSHHosts {
		return fmt.Errorf("cluster fault: %s is an ssh hosts environment: its faults are the ssh commands of %s", dir, filepath.Join(dir, HooksFile))
	}
	setTestcontainersEnv()
	eng, err := newEngine(ctx)
	if err != nil {
		return fmt.Errorf("cluster fault: %w", err)
	}
	defer eng.Close()
	c := &Cluster{opts: Options{RunID: st.RunID, Brokers: len(st.Containers)}, eng: eng, api: newProxyAPI(st.ProxyAPI), links: st.Links}
	action, rest := args[0], args[1:]
	want := map[string]int{"kill": 1, "start": 1, "restart": 1, "pause": 1, "resume": 1, "isolate": 1, "disconnect": 2, "latency": 2, "heal": 0}
	n, ok := want[action]
	if !ok {
		return fmt.Errorf("cluster fault: unknown action %q", action)
	}
	if len(rest) != n {
		return fmt.Errorf("cluster fault %s: want %d arguments, got %d", action, n, len(rest))
	}
	node := func(s string) (cluster.NodeID, string, error) {
		i, err := strconv.Atoi(s)
		if err != nil || i < 1 || i > len(st.Containers) {
			return 0, "", fmt.Errorf("cluster fault %s: node %q: want 1..%d", action, s, len(st.Containers))
		}
		return cluster.NodeID(i), st.Containers[i-1], nil
	}
	switch action {
	case "kill", "start", "restart", "pause", "resume", "isolate":
		n, id, err := node(rest[0])
		if err != nil {
			return err
		}
		switch action {
		case "kill":
			return eng.kill(ctx, id)
		case "start":
			return eng.start(ctx, id)
		case "restart":
			return restartContainer(ctx, eng, id)
		case "pause":
			return eng.pause(ctx, id)
		case "resume":
			return eng.unpause(ctx, id)
		default:
			return c.setLinks(ctx, false, func(l proxyLink) bool { return l.Touches(n) })
		}
	case "disconnect":
		a, _, err := node(rest[0])
		if err != nil {
			return err
		}
		b, _, err := node(rest[1])
		if err != nil {
			return err
		}
		return c.setLinks(ctx, false, func(l proxyLink) bool {
			return l.Kind != cluster.LinkClient && (l.From == a && l.To == b || l.From == b && l.To == a)
		})
	case "latency":
		lat, err1 := time.ParseDuration(rest[0])
		jit, err2 := time.ParseDuration(rest[1])
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("cluster fault latency: %w", err)
		}
		return c.SetLatency(ctx, lat, jit)
	default:
		return c.HealAll(ctx)
	}
}

// restartContainer stops a running (or paused) broker gracefully and starts
// it again.
func restartContainer(ctx context.Context, eng *engine, id string) error {
	st, err := eng.state(ctx, id)
	if err != nil {
		return err
	}
	switch st {
	case container.StatePaused:
		if err := eng.unpause(ctx, id); err != nil {
			return err
		}
		fallthrough
	case container.StateRunning:
		if err := eng.stop(ctx, id, restartGrace); err != nil {
			return err
		}
	}
	return eng.start(ctx, id)
}
