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

	proxyAPIPort        = 8474
	proxyClientBase     = 19000
	proxyInternalBase   = 19100
	proxyControllerBase = 19200

	proxyAlias = "toxiproxy"

	// maxBrokers keeps the per-pair proxy ports inside their ranges.
	maxBrokers = 99
)

// LinkKind is what a link carries.
type LinkKind string

const (
	// LinkClient: clients on the host to a broker's client listener.
	LinkClient LinkKind = "client"
	// LinkInternal: one broker to another's inter-broker listener
	// (replication fetches, inter-broker requests).
	LinkInternal LinkKind = "internal"
	// LinkController: one broker (or its controller) to another's
	// controller listener (KRaft votes and fetches, heartbeats).
	LinkController LinkKind = "controller"
)

// Link is one proxied TCP path, that is one toxiproxy proxy. Faults of
// their own (e.g. a Kafka-protocol-aware toxic) add toxics to it by Name
// through the API at Cluster.ProxyAPI.
type Link struct {
	Name string // the proxy's name, e.g. "internal-1-2"
	Kind LinkKind
	// From is the broker whose connections enter this proxy; 0 for clients.
	From cluster.NodeID
	// To is the broker the proxy forwards to.
	To       cluster.NodeID
	Listen   string // address inside the toxiproxy container
	Upstream string // address of the broker's listener on its network
}

// Touches says whether the link carries traffic of node.
func (l Link) Touches(node cluster.NodeID) bool { return l.From == node || l.To == node }

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

// links lays out every proxy. proxyIPs[i] is toxiproxy's address on broker
// i+1's network.
func links(brokers int, proxyIPs []string) []Link {
	var ls []Link
	for to := 1; to <= brokers; to++ {
		ls = append(ls, Link{
			Name: fmt.Sprintf("client-%d", to), Kind: LinkClient, To: cluster.NodeID(to),
			Listen:   net.JoinHostPort("0.0.0.0", strconv.Itoa(proxyClientBase+to)),
			Upstream: net.JoinHostPort(brokerAlias(to), strconv.Itoa(brokerClientPort)),
		})
	}
	for from := 1; from <= brokers; from++ {
		for to := 1; to <= brokers; to++ {
			for _, k := range []struct {
				kind             LinkKind
				listenBase, port int
			}{
				{LinkInternal, proxyInternalBase, brokerInternalPort},
				{LinkController, proxyControllerBase, brokerControllerPort},
			} {
				ls = append(ls, Link{
					Name: fmt.Sprintf("%s-%d-%d", k.kind, from, to), Kind: k.kind,
					From: cluster.NodeID(from), To: cluster.NodeID(to),
					Listen:   net.JoinHostPort(proxyIPs[from-1], strconv.Itoa(k.listenBase+to)),
					Upstream: net.JoinHostPort(brokerAlias(to), strconv.Itoa(k.port)),
				})
			}
		}
	}
	return ls
}
