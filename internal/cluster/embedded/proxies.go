package embedded

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

const (
	latencyToxic = "latency"
	// toxicRemoveTimeout bounds a toxic's removal: toxiproxy 2.12.0 can hang
	// there, and a heal that never returns would hang the whole run.
	toxicRemoveTimeout = 5 * time.Second
)

// proxies is the in-process toxiproxy in front of the brokers: proxy i listens
// on listen[i] and forwards to broker i. It serves no HTTP API; faults act on
// the proxies directly.
type proxies struct {
	mu     sync.Mutex
	server *toxiproxy.ApiServer
	byNode []*toxiproxy.Proxy
}

func startProxies(listen, upstream []string) (*proxies, error) {
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	p := &proxies{server: server}
	for i := range listen {
		proxy := toxiproxy.NewProxy(server, fmt.Sprintf("broker-%d", i), listen[i], upstream[i])
		if err := proxy.Start(); err != nil {
			p.close()
			return nil, fmt.Errorf("start proxy %s -> %s: %w", listen[i], upstream[i], err)
		}
		p.byNode = append(p.byNode, proxy)
	}
	return p, nil
}

// disable stops node's proxy: its listener closes (new connections are
// refused) and every open connection through it is closed.
func (p *proxies) disable(node int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byNode[node].Stop()
}

// enableAll starts every stopped proxy again on its old address.
func (p *proxies) enableAll() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, proxy := range p.byNode {
		if proxy.Enabled {
			continue
		}
		if err := proxy.Start(); err != nil && !errors.Is(err, toxiproxy.ErrProxyAlreadyStarted) {
			errs = append(errs, fmt.Errorf("start proxy %s: %w", proxy.Listen, err))
		}
	}
	return errors.Join(errs...)
}

// setLatency delays the data each proxy sends to clients (the downstream
// direction) by latency plus or minus jitter, so a request's round trip grows
// by that much; zero latency removes the delay. A changed latency replaces
// the toxic rather than updating it: toxiproxy 2.12.0's update writes the
// toxic while the running links read it (a data race).
func (p *proxies) setLatency(ctx context.Context, latency, jitter time.Duration) error {
	if err := p.removeToxics(ctx); err != nil {
		return err
	}
	if latency <= 0 {
		return nil
	}
	toxic := fmt.Sprintf(`{"name":%q,"type":"latency","stream":"downstream","toxicity":1,"attributes":{"latency":%d,"jitter":%d}}`,
		latencyToxic, latency.Milliseconds(), jitter.Milliseconds())
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, proxy := range p.byNode {
		if _, err := proxy.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
			return fmt.Errorf("set latency on proxy %s: %w", proxy.Listen, err)
		}
	}
	return nil
}

// removeToxics removes every toxic from every proxy. A removal that hangs
// (a toxiproxy 2.12.0 bug) is abandoned after toxicRemoveTimeout and its proxy
// replaced by a fresh one on the same addresses: that drops the connections
// through it, which is still better than a fault that never heals.
func (p *proxies) removeToxics(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for i, proxy := range p.byNode {
		for _, toxic := range proxy.Toxics.GetToxicArray() {
			name := toxicName(toxic)
			if name == "" {
				continue
			}
			if err := removeToxic(ctx, proxy, name); err != nil {
				if rerr := p.replace(i); rerr != nil {
					errs = append(errs, fmt.Errorf("remove toxic %s from proxy %s: %w; %w", name, proxy.Listen, err, rerr))
				}
				break
			}
		}
	}
	return errors.Join(errs...)
}

func removeToxic(ctx context.Context, proxy *toxiproxy.Proxy, name string) error {
	done := make(chan error, 1)
	go func() { done <- proxy.Toxics.RemoveToxic(ctx, name) }()
	timer := time.NewTimer(toxicRemoveTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if errors.Is(err, toxiproxy.ErrToxicNotFound) {
			return nil
		}
		return err
	case <-timer.C:
		return fmt.Errorf("timed out after %v", toxicRemoveTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// replace swaps proxy i for a new one without toxics, keeping it enabled or
// disabled as it was. Called with p.mu held.
func (p *proxies) replace(i int) error {
	old := p.byNode[i]
	wasEnabled := old.Enabled
	old.Stop()
	fresh := toxiproxy.NewProxy(p.server, old.Name, old.Listen, old.Upstream)
	p.byNode[i] = fresh
	if !wasEnabled {
		return nil
	}
	return fresh.Start()
}

// toxicName reads a toxic's name: GetToxicArray hands out the wrappers
// behind the Toxic interface.
func toxicName(t toxics.Toxic) string {
	if w, ok := t.(*toxics.ToxicWrapper); ok {
		return w.Name
	}
	return ""
}

// addrs lists the proxies' listen addresses in node order.
func (p *proxies) addrs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.byNode))
	for i, proxy := range p.byNode {
		out[i] = proxy.Listen
	}
	return out
}

func (p *proxies) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, proxy := range p.byNode {
		proxy.Stop()
	}
}
