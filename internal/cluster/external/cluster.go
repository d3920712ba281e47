// Package external is the backend for a Kafka cluster the suite did not
// start: several hosts, Kubernetes with Strimzi, VMs with systemd, or a
// `sharechaos cluster up` cluster. Clients reach it with the user's TLS and
// SASL settings (clientcfg); faults act on it through the commands of a
// hooks file (--fault-hooks), so it offers exactly the capabilities whose
// hooks are there and every other fault is N/A with the reason. Whatever a
// fault broke is healed at the end of each cell and at Close.
package external

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
)

// Name is the backend's name in flags and reports.
const Name = "external"

// DefaultReachTimeout bounds the first answer from the bootstrap.
const DefaultReachTimeout = 15 * time.Second

// Options configure the external backend.
type Options struct {
	// Bootstrap is the brokers' addresses, host:port.
	Bootstrap []string
	Client    clientcfg.Config
	// Hooks are the fault hooks; nil means no fault can act.
	Hooks *Hooks
	// ReachTimeout bounds the first answer (default DefaultReachTimeout).
	ReachTimeout time.Duration
	Log          *slog.Logger
	// HooksLog is the file every hook run is appended to (HooksLogFile in
	// the run directory); "" keeps none.
	HooksLog string
}

// Cluster is a cluster reached at its bootstrap. Its methods are safe for
// concurrent use.
type Cluster struct {
	o     Options
	opts  []kgo.Opt
	admin *kgo.Client
	adm   *kadm.Client
	nodes []cluster.NodeID
	where map[cluster.NodeID]kadm.BrokerDetail

	// What the faults left broken, for HealEverything.
	mu         sync.Mutex
	killed     map[cluster.NodeID]bool
	paused     map[cluster.NodeID]bool
	linksDirty bool

	// The hooks file's toxiproxy, read the first time a fault asks.
	toxi toxiLinks

	hooksLog *hooksLog
}

var (
	_ cluster.Cluster = (*Cluster)(nil)
	_ cluster.Clients = (*Cluster)(nil)
	_ cluster.Capable = (*Cluster)(nil)
	_ cluster.Roles   = (*Cluster)(nil)
	_ cluster.Links   = (*Cluster)(nil)
)

// Start reaches the cluster and reads its brokers. An unreachable bootstrap
// is an error naming the addresses within ReachTimeout.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if len(o.Bootstrap) == 0 {
		return nil, errors.New("start external cluster: no bootstrap address (--bootstrap HOST:PORT,...)")
	}
	if o.ReachTimeout <= 0 {
		o.ReachTimeout = DefaultReachTimeout
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	opts, err := o.Client.Opts()
	if err != nil {
		return nil, fmt.Errorf("start external cluster: %w", err)
	}
	if err := o.Client.Export(); err != nil {
		return nil, err
	}
	c := &Cluster{o: o, opts: opts, killed: map[cluster.NodeID]bool{}, paused: map[cluster.NodeID]bool{}, hooksLog: &hooksLog{path: o.HooksLog}}
	c.admin, err = kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(o.Bootstrap...), kgo.ClientID("sharechaos-external"),
		kgo.DialTimeout(5 * time.Second)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("start external cluster: %w", err)
	}
	c.adm = kadm.NewClient(c.admin)
	rctx, cancel := context.WithTimeout(ctx, o.ReachTimeout)
	defer cancel()
	m, err := c.adm.BrokerMetadata(rctx)
	if err != nil {
		c.admin.Close()
		if hint := reachHint(err, o.Client); hint != "" {
			return nil, fmt.Errorf("reach bootstrap %s within %s: %w: %s", strings.Join(o.Bootstrap, ","), o.ReachTimeout, err, hint)
		}
		return nil, fmt.Errorf("reach bootstrap %s within %s: %w", strings.Join(o.Bootstrap, ","), o.ReachTimeout, err)
	}
	c.where = map[cluster.NodeID]kadm.BrokerDetail{}
	for _, b := range m.Brokers {
		c.nodes = append(c.nodes, cluster.NodeID(b.NodeID))
		c.where[cluster.NodeID(b.NodeID)] = b
	}
	slices.Sort(c.nodes)
	o.Log.Info("external cluster", "bootstrap", o.Bootstrap, "brokers", c.nodes)
	return c, nil
}

func (c *Cluster) Name() string { return Name }

// Nodes lists the brokers the metadata named at Start, in node-id order.
func (c *Cluster) Nodes() []cluster.NodeID { return slices.Clone(c.nodes) }

// Bootstrap is the addresses the user gave.
func (c *Cluster) Bootstrap() []string { return slices.Clone(c.o.Bootstrap) }

func (c *Cluster) ClientConfig() clientcfg.Config { return c.o.Client }
func (c *Cluster) ClientOpts() []kgo.Opt          { return slices.Clone(c.opts) }

// Hooks is the hooks file the cluster runs with (nil without one).
func (c *Cluster) Hooks() *Hooks { return c.o.Hooks }

// Close heals whatever a fault left broken, then closes the admin client;
// the cluster itself keeps running. It works with a cancelled ctx (Ctrl-C).
func (c *Cluster) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	err := c.HealEverything(ctx)
	c.admin.Close()
	return err
}

// Lacks says which capability the hooks file does not provide, and so why a
// fault that needs it is N/A.
func (c *Cluster) Lacks(cap cluster.Capability) string {
	h := c.o.Hooks
	missing := func(what string, names ...HookName) string {
		switch {
		case h.Has(names...):
			return ""
		case h == nil:
			return what + ", and no --fault-hooks file was given"
		}
		return fmt.Sprintf("%s: the fault hooks file %s has no %s hook", what, h.File, joinNames(names))
	}
	switch cap {
	case cluster.CapProcesses:
		if h.Has(HookKill) && (h.Has(HookStart) || h.Has(HookRestart)) {
			return ""
		}
		return missing("broker crashes need kill and start hooks", HookKill, HookStart)
	case cluster.CapRestart:
		return missing("restarting a running broker needs a restart hook", HookRestart)
	case cluster.CapPauser:
		return missing("pausing a broker needs pause and resume hooks", HookPause, HookResume)
	case cluster.CapIsolate:
		return missing("isolating a broker needs isolate and heal hooks", HookIsolate, HookHeal)
	case cluster.CapLatency:
		return missing("slowing the links needs latency and heal hooks", HookLatency, HookHeal)
	case cluster.CapBrokerLinks:
		return missing("cutting links between brokers needs disconnect and heal hooks", HookDisconnect, HookHeal)
	case cluster.CapKafkaToxic:
		return c.kafkaToxicLacks()
	}
	return ""
}

func joinNames(ns []HookName) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return strings.Join(s, " or ")
}

// run runs one hook, or says it is missing (a fault whose Needs passed
// never gets here without its hook).
func (c *Cluster) run(ctx context.Context, name HookName, d HookData) error {
	if !c.o.Hooks.Has(name) {
		return fmt.Errorf("fault hook %s: %w (not in the hooks file)", name, cluster.ErrUnsupported)
	}
	if b, ok := c.where[cluster.NodeID(d.Node)]; ok {
		d.Host, d.Port = b.Host, b.Port
	}
	began := time.Now()
	command, out, err := runHook(ctx, c.o.Hooks.Hooks[name], d)
	c.o.Log.Info("fault hook", "hook", name, "node", d.Node, "took", time.Since(began).Round(time.Millisecond), "err", err, "output", strings.TrimSpace(out))
	if lerr := c.hooksLog.record(began, name, d, command, out, err); lerr != nil {
		c.o.Log.Warn("could not write the hooks log", "file", c.o.HooksLog, "err", lerr)
	}
	return err
}

func (c *Cluster) known(node cluster.NodeID) error {
	if !slices.Contains(c.nodes, node) {
		return fmt.Errorf("broker %d: not in this cluster (brokers %v)", node, c.nodes)
	}
	return nil
}

// Kill runs the kill hook.
func (c *Cluster) Kill(ctx context.Context, node cluster.NodeID) error {
	if err := c.known(node); err != nil {
		return err
	}
	c.mark(c.killed, node, true)
	if err := c.run(ctx, HookKill, HookData{Node: int32(node)}); err != nil {
		return fmt.Errorf("kill broker %d: %w", node, err)
	}
	return nil
}

// Restart starts a killed broker (start hook, else restart) or restarts a
// running one (restart hook), and returns once the broker answers.
func (c *Cluster) Restart(ctx context.Context, node cluster.NodeID) error {
	if err := c.known(node); err != nil {
		return err
	}
	c.mu.Lock()
	killed := c.killed[node]
	c.mu.Unlock()
	hook := HookRestart
	if killed && c.o.Hooks.Has(HookStart) {
		hook = HookStart
	}
	if err := c.run(ctx, hook, HookData{Node: int32(node)}); err != nil {
		return fmt.Errorf("restart broker %d: %w", node, err)
	}
	c.mark(c.killed, node, false)
	if err := c.waitUp(ctx, node); err != nil {
		return fmt.Errorf("restart broker %d: %w", node, err)
	}
	return nil
}

// Pause runs the pause hook.
func (c *Cluster) Pause(ctx context.Context, node cluster.NodeID) error {
	if err := c.known(node); err != nil {
		return err
	}
	c.mark(c.paused, node, true)
	if err := c.run(ctx, HookPause, HookData{Node: int32(node)}); err != nil {
		return fmt.Errorf("pause broker %d: %w", node, err)
	}
	return nil
}

// Resume runs the resume hook.
func (c *Cluster) Resume(ctx context.Context, node cluster.NodeID) error {
	if err := c.run(ctx, HookResume, HookData{Node: int32(node)}); err != nil {
		return fmt.Errorf("resume broker %d: %w", node, err)
	}
	c.mark(c.paused, node, false)
	return nil
}

// Isolate runs the isolate hook.
func (c *Cluster) Isolate(ctx context.Context, node cluster.NodeID) error {
	if err := c.known(node); err != nil {
		return err
	}
	c.dirty()
	if err := c.run(ctx, HookIsolate, HookData{Node: int32(node)}); err != nil {
		return fmt.Errorf("isolate broker %d: %w", node, err)
	}
	return nil
}

// Disconnect runs the disconnect hook for a and b.
func (c *Cluster) Disconnect(ctx context.Context, a, b cluster.NodeID) error {
	c.dirty()
	if err := c.run(ctx, HookDisconnect, HookData{From: int32(a), To: int32(b)}); err != nil {
		return fmt.Errorf("disconnect brokers %d and %d: %w", a, b, err)
	}
	return nil
}

// SetLatency runs the latency hook; zero latency and jitter run heal.
func (c *Cluster) SetLatency(ctx context.Context, latency, jitter time.Duration) error {
	if latency == 0 && jitter == 0 {
		return c.HealAll(ctx)
	}
	c.dirty()
	d := HookData{Latency: latency.String(), Jitter: jitter.String(), LatencyMs: latency.Milliseconds(), JitterMs: jitter.Milliseconds()}
	if err := c.run(ctx, HookLatency, d); err != nil {
		return fmt.Errorf("set latency %v±%v: %w", latency, jitter, err)
	}
	return nil
}

// HealAll runs the heal hook.
func (c *Cluster) HealAll(ctx context.Context) error {
	if err := c.run(ctx, HookHeal, HookData{}); err != nil {
		return fmt.Errorf("heal all links: %w", err)
	}
	c.mu.Lock()
	c.linksDirty = false
	c.mu.Unlock()
	return nil
}

// HealEverything removes every Kafka toxic a fault left, starts every
// broker a fault killed, resumes every paused one and heals the links a
// fault touched: run at Close, so a run leaves the cluster as it found it.
func (c *Cluster) HealEverything(ctx context.Context) error {
	return c.heal(ctx, anyToxic)
}

// HealCell is HealEverything at the end of one cell, whose topics start
// with prefix: of the Kafka toxics it removes only that cell's, since other
// cells beside it (late-endtxn runs in the pool) may be using theirs.
func (c *Cluster) HealCell(ctx context.Context, prefix string) error {
	return c.heal(ctx, ofCell(prefix))
}

func (c *Cluster) heal(ctx context.Context, toxics func(name string) bool) error {
	c.mu.Lock()
	var killed, paused []cluster.NodeID
	for n, k := range c.killed {
		if k {
			killed = append(killed, n)
		}
	}
	for n, p := range c.paused {
		if p {
			paused = append(paused, n)
		}
	}
	dirty := c.linksDirty
	c.mu.Unlock()
	// The toxics first: a hold left on a link would hold the restarted
	// brokers' requests too.
	errs := []error{c.removeKafkaToxics(ctx, toxics)}
	for _, n := range paused {
		errs = append(errs, c.Resume(ctx, n))
	}
	if dirty {
		errs = append(errs, c.HealAll(ctx))
	}
	for _, n := range killed {
		errs = append(errs, c.Restart(ctx, n))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("heal the external cluster: %w", err)
	}
	return nil
}

func (c *Cluster) mark(m map[cluster.NodeID]bool, node cluster.NodeID, v bool) {
	c.mu.Lock()
	m[node] = v
	c.mu.Unlock()
}

func (c *Cluster) dirty() {
	c.mu.Lock()
	c.linksDirty = true
	c.mu.Unlock()
}

// waitUp polls until node answers a request of its own and the metadata
// lists it (registered and unfenced), within the hooks file's up_timeout.
func (c *Cluster) waitUp(ctx context.Context, node cluster.NodeID) error {
	wctx, cancel := context.WithTimeout(ctx, c.o.Hooks.UpTimeout)
	defer cancel()
	var last error
	for {
		_, err := c.admin.Broker(int(node)).Request(wctx, kmsg.NewPtrApiVersionsRequest())
		if err == nil {
			var m kadm.Metadata
			m, err = c.adm.BrokerMetadata(wctx)
			if err == nil && !slices.Contains(m.Brokers.NodeIDs(), int32(node)) {
				err = fmt.Errorf("not in the metadata yet")
			}
		}
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-wctx.Done():
			return fmt.Errorf("wait for broker %d to answer within %s: %v", node, c.o.Hooks.UpTimeout, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (c *Cluster) roles() kafkarole.Roles {
	return kafkarole.Roles{Adm: c.adm, Log: c.o.Log, Known: c.known}
}

// Coordinator: see kafkarole.Roles.Coordinator.
func (c *Cluster) Coordinator(ctx context.Context, kind cluster.CoordKind, key string) (cluster.NodeID, error) {
	return c.roles().Coordinator(ctx, kind, key)
}

// MoveLeader: see kafkarole.Roles.MoveLeader.
func (c *Cluster) MoveLeader(ctx context.Context, topic string, partition int32, node cluster.NodeID) error {
	return c.roles().MoveLeader(ctx, topic, partition, node)
}
