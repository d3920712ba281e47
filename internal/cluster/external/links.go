package external

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/toxiproxyhttp"
)

// The links of an external cluster are the proxies of the hooks file's
// toxiproxy (toxiproxy:), named as the docker backend names them
// (docker/topology.go), which is what `cluster up` runs:
//
//	client-N        clients to broker N
//	internal-A-B    broker A to broker B's inter-broker listener
//	controller-A-B  broker A to broker B's controller listener
//
// Proxies named otherwise are left alone. The faults that act on single
// Kafka requests (late-endtxn, coordinator-crash-after-endtxn) find the
// proxies here (cluster.Links); they are read and checked once, the first
// time a fault asks, and the answer is kept for the run.

// linksTimeout bounds reading and checking the links.
const linksTimeout = 45 * time.Second

// linkOf is the link a proxy of that name stands for, if its name follows
// the convention.
func linkOf(name string) (cluster.Link, bool) {
	kind, rest, ok := strings.Cut(name, "-")
	if !ok {
		return cluster.Link{}, false
	}
	parts := strings.Split(rest, "-")
	nodes := make([]cluster.NodeID, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != p {
			return cluster.Link{}, false
		}
		nodes[i] = cluster.NodeID(n)
	}
	switch k := cluster.LinkKind(kind); {
	case k == cluster.LinkClient && len(nodes) == 1:
		return cluster.Link{Name: name, Kind: k, To: nodes[0]}, true
	case (k == cluster.LinkInternal || k == cluster.LinkController) && len(nodes) == 2:
		return cluster.Link{Name: name, Kind: k, From: nodes[0], To: nodes[1]}, true
	}
	return cluster.Link{}, false
}

// kindOrder sorts links as the docker backend lists them: clients first.
var kindOrder = []cluster.LinkKind{cluster.LinkClient, cluster.LinkInternal, cluster.LinkController}

// linksOf maps the proxies whose names follow the convention, in a stable
// order (toxiproxy lists its proxies as a JSON object).
func linksOf(proxies map[string]toxiproxyhttp.Proxy) []cluster.Link {
	var ls []cluster.Link
	for name := range proxies {
		if l, ok := linkOf(name); ok {
			ls = append(ls, l)
		}
	}
	slices.SortFunc(ls, func(a, b cluster.Link) int {
		if d := slices.Index(kindOrder, a.Kind) - slices.Index(kindOrder, b.Kind); d != 0 {
			return d
		}
		if a.From != b.From {
			return int(a.From - b.From)
		}
		return int(a.To - b.To)
	})
	return ls
}

// toxiLinks is what was found about the hooks file's toxiproxy.
type toxiLinks struct {
	once  sync.Once
	links []cluster.Link
	// lacks says why the Kafka toxic cannot act on this cluster's
	// clients; "" when it can.
	lacks string
	// usable is set once the links were checked and found usable: only
	// then can a fault have put a Kafka toxic on them (HealEverything).
	usable atomic.Bool
}

// Links lists the proxied links of the hooks file's toxiproxy (none
// without one). cluster.Links, for the faults that use the Kafka toxic.
func (c *Cluster) Links() []cluster.Link {
	c.readLinks()
	return slices.Clone(c.toxi.links)
}

// ProxyAPI is the hooks file's toxiproxy address ("" without one), for the
// Kafka-protocol toxic.
func (c *Cluster) ProxyAPI() string {
	if c.o.Hooks == nil {
		return ""
	}
	return c.o.Hooks.Toxiproxy
}

// kafkaToxicLacks is Lacks(cluster.CapKafkaToxic).
func (c *Cluster) kafkaToxicLacks() string {
	c.readLinks()
	if c.toxi.lacks == "" {
		return ""
	}
	return "the Kafka-protocol toxic needs a toxiproxy in the clients' path: " + c.toxi.lacks
}

func (c *Cluster) readLinks() {
	c.toxi.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), linksTimeout)
		defer cancel()
		c.toxi.links, c.toxi.lacks = c.checkLinks(ctx)
		switch {
		case c.toxi.lacks == "":
			c.toxi.usable.Store(true)
		case c.ProxyAPI() != "":
			// A toxiproxy was named and cannot serve: worth a line
			// beside the N/A cells.
			c.o.Log.Warn("kafka toxic unavailable", "reason", c.toxi.lacks)
		}
	})
}

// checkLinks reads the proxies and checks that the clients' traffic to
// every broker passes through its client-N proxy. It returns the links it
// found and, when the Kafka toxic cannot act on the clients, why.
func (c *Cluster) checkLinks(ctx context.Context) ([]cluster.Link, string) {
	h := c.o.Hooks
	if h == nil {
		return nil, "no --fault-hooks file was given"
	}
	if h.Toxiproxy == "" {
		return nil, "the fault hooks file " + h.File + " names no toxiproxy: API address"
	}
	at := fmt.Sprintf("the toxiproxy at %s (toxiproxy: of %s)", h.Toxiproxy, h.File)
	if c.o.Client.TLS() {
		// The toxic parses Kafka frames; through TLS it sees none.
		return nil, fmt.Sprintf("the clients use %s, and %s can read no Kafka request through TLS", c.o.Client.Protocol, at)
	}
	api := toxiproxyhttp.New(h.Toxiproxy)
	proxies, err := api.Proxies(ctx)
	if err != nil {
		return nil, fmt.Sprintf("%s does not answer: %v", at, err)
	}
	links := linksOf(proxies)
	var missing []string
	for _, n := range c.nodes {
		if !slices.ContainsFunc(links, func(l cluster.Link) bool { return l.Kind == cluster.LinkClient && l.To == n }) {
			missing = append(missing, fmt.Sprintf("client-%d", n))
		}
	}
	if len(missing) > 0 {
		return links, fmt.Sprintf("%s has no proxy %s for the brokers %v of the cluster's metadata (its proxies: %s)",
			at, strings.Join(missing, ", "), c.nodes, proxyNames(proxies))
	}
	for _, n := range c.nodes {
		if err := c.probeClientLink(ctx, api, proxies[fmt.Sprintf("client-%d", n)], n); err != nil {
			return links, fmt.Sprintf("%s: %v", at, err)
		}
	}
	return links, ""
}

// proxyNames lists a few proxy names, for a message.
func proxyNames(proxies map[string]toxiproxyhttp.Proxy) string {
	const most = 12
	names := slices.Sorted(maps.Keys(proxies))
	if len(names) == 0 {
		return "none"
	}
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}
