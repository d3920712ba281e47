package docker

import (
	"fmt"
	"net"
	"strconv"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// The cluster's wiring. Every broker sits alone on its own bridge network
// with the one toxiproxy container, which is attached to all of them. A
// broker reaches anything only through toxiproxy, and toxiproxy listens on a
// separate address in each network, so each ordered pair of brokers
// (from -> to) has its own proxy. That is what lets Isolate cut a broker's
// outgoing links too (its fetches from leaders, its heartbeats and votes to
// the controllers), not just the connections that come into it: with one
// proxy per listener, an "isolated" broker would keep its controller
// session and never be fenced.
//
// Inside each broker network the name "toxiproxy" resolves to the proxy's
// address on that network, so every broker advertises the same addresses
// (toxiproxy:19100+id for inter-broker, toxiproxy:19200+id for controller)
// and still goes through its own proxies.
//
// Clients on the host reach broker id through the proxy "client-<id>",
// published on 127.0.0.1 at a port the engine picks once; the toxiproxy
// container is never restarted, so the port stays valid across broker
// restarts.
const (
	brokerClientPort     = 9092
	brokerInternalPort   = 9093
	brokerControllerPort = 9094

	// brokerMetricsPort is the Jolokia agent in our Kafka images (Kafka's
	// JMX read over HTTP), reached through the proxy "metrics-<id>",
	// published like the client proxies; it is no cluster link, so no fault
	// touches it.
	brokerMetricsPort = 8778

	proxyAPIPort        = 8474
	proxyClientBase     = 19000
	proxyInternalBase   = 19100
	proxyControllerBase = 19200
	proxyMetricsBase    = 19300

	proxyAlias = "toxiproxy"

	// maxBrokers keeps the per-pair proxy ports inside their ranges.
	maxBrokers = 99
)

// proxyLink is one link of the cluster as the docker backend lays it out:
// the link (cluster.Link, its proxy's name) and where its proxy listens and
// forwards to.
type proxyLink struct {
	cluster.Link
	Listen   string // address inside the toxiproxy container
	Upstream string // address of the broker's listener on its network
}

func brokerAlias(node int) string { return "kafka-" + strconv.Itoa(node) }

func networkName(runID string, node int) string {
	return fmt.Sprintf("sharechaos-%s-net-%d", runID, node)
}

func edgeNetworkName(runID string) string { return "sharechaos-" + runID + "-edge" }

func brokerContainerName(runID string, node int) string {
	return fmt.Sprintf("sharechaos-%s-kafka-%d", runID, node)
}

func proxyContainerName(runID string) string { return "sharechaos-" + runID + "-toxiproxy" }

func clientProxyPort(node int) string { return strconv.Itoa(proxyClientBase+node) + "/tcp" }

func metricsProxyPort(node int) string { return strconv.Itoa(proxyMetricsBase+node) + "/tcp" }

// metricsProxies are the proxies to each broker's metrics port: not links
// (links leaves them out), so latency, isolation and disconnects pass them by.
func metricsProxies(brokers int) []proxySpec {
	var ps []proxySpec
	for n := 1; n <= brokers; n++ {
		ps = append(ps, proxySpec{Name: fmt.Sprintf("metrics-%d", n), Enabled: true,
			Listen:   net.JoinHostPort("0.0.0.0", strconv.Itoa(proxyMetricsBase+n)),
			Upstream: net.JoinHostPort(brokerAlias(n), strconv.Itoa(brokerMetricsPort))})
	}
	return ps
}

// links lays out every proxy. proxyIPs[i] is toxiproxy's address on broker
// i+1's network.
func links(brokers int, proxyIPs []string) []proxyLink {
	var ls []proxyLink
	for to := 1; to <= brokers; to++ {
		ls = append(ls, proxyLink{
			Link:     cluster.Link{Name: fmt.Sprintf("client-%d", to), Kind: cluster.LinkClient, To: cluster.NodeID(to)},
			Listen:   net.JoinHostPort("0.0.0.0", strconv.Itoa(proxyClientBase+to)),
			Upstream: net.JoinHostPort(brokerAlias(to), strconv.Itoa(brokerClientPort)),
		})
	}
	for from := 1; from <= brokers; from++ {
		for to := 1; to <= brokers; to++ {
			for _, k := range []struct {
				kind             cluster.LinkKind
				listenBase, port int
			}{
				{cluster.LinkInternal, proxyInternalBase, brokerInternalPort},
				{cluster.LinkController, proxyControllerBase, brokerControllerPort},
			} {
				ls = append(ls, proxyLink{
					Link: cluster.Link{Name: fmt.Sprintf("%s-%d-%d", k.kind, from, to), Kind: k.kind,
						From: cluster.NodeID(from), To: cluster.NodeID(to)},
					Listen:   net.JoinHostPort(proxyIPs[from-1], strconv.Itoa(k.listenBase+to)),
					Upstream: net.JoinHostPort(brokerAlias(to), strconv.Itoa(k.port)),
				})
			}
		}
	}
	return ls
}
