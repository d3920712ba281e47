package faults

import (
	"context"
	"fmt"
	"slices"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/kafkarelease"
)

// A row's Needs says, before a cell starts, whether the backend can run the
// fault at all; "" means yes, anything else is the N/A reason the report
// shows. Each check below names one capability and why the fault wants it.

// needsProcesses: broker crashes need a backend that can SIGKILL one broker and
// bring it back faithfully. kfake cannot: its kill -9 recovery loses share-group
// progress and hides committed data (ENVIRONMENT.md), which would test kfake,
// not the system under test.
func needsProcesses(c cluster.Cluster) string {
	if why := cluster.Lacks(c, cluster.CapProcesses); why != "" {
		return why
	}
	if _, ok := c.(cluster.Processes); !ok {
		return "broker crashes need real Kafka: this backend cannot kill -9 and recover a broker faithfully (kfake loses share-group progress on kill -9)"
	}
	return ""
}

// needsRestarts: a rolling restart restarts one broker at a time.
func needsRestarts(c cluster.Cluster) string {
	if why := cluster.Lacks(c, cluster.CapRestart); why != "" {
		return why
	}
	if _, ok := c.(cluster.Processes); !ok {
		return "a rolling restart restarts one broker at a time: this backend cannot (kfake runs every broker in one process)"
	}
	return ""
}

// needsPause: the fault freezes a broker's process and thaws it.
func needsPause(c cluster.Cluster) string {
	if why := cluster.Lacks(c, cluster.CapPauser); why != "" {
		return why
	}
	if _, ok := c.(cluster.Pauser); !ok {
		return "freezing a broker needs a process of its own: this backend cannot (kfake runs every broker in one process)"
	}
	return ""
}

// needsRoles: the fault picks its broker by role (a partition's leader, a
// coordinator) or moves leaders.
func needsRoles(c cluster.Cluster) string {
	if _, ok := c.(cluster.Roles); !ok {
		return "this backend cannot tell which broker leads a partition or coordinates a key"
	}
	return ""
}

// needsSeparateBrokers: the fault moves a partition's leadership to test
// what the new leader restores, which needs brokers that each keep their
// own state. kfake runs every broker in one process over one share state,
// where a leader move restores nothing.
func needsSeparateBrokers(c cluster.Cluster) string {
	if _, ok := c.(cluster.Processes); !ok {
		return "a leader move must hand a share-partition to another broker to restore: kfake runs every broker in one process over one share state"
	}
	return ""
}

// needsNetwork: the fault acts on the proxies in front of the brokers.
func needsNetwork(c cluster.Cluster) string {
	if _, ok := c.(cluster.Network); !ok {
		return "this backend has no proxies in front of its brokers to act on"
	}
	return ""
}

// brokerLinks is a backend whose brokers talk to each other through proxies
// it can cut (the docker backend's Disconnect): only there does isolating a
// broker fence it and move its leaderships.
type brokerLinks interface {
	Disconnect(ctx context.Context, a, b cluster.NodeID) error
}

// needsBrokerLinks: the fault cuts or holds traffic between brokers.
func needsBrokerLinks(c cluster.Cluster) string {
	if why := cluster.Lacks(c, cluster.CapBrokerLinks); why != "" {
		return why
	}
	if _, ok := c.(brokerLinks); !ok {
		return "needs links between brokers to cut: this backend has none (kfake runs every broker in one process, so an isolated broker keeps leading and coordinating and nothing fails over)"
	}
	return ""
}

// needsKafkaToxic: the fault acts on single Kafka requests of one link,
// through the Kafka toxic in a toxiproxy that answers its HTTP API.
func needsKafkaToxic(c cluster.Cluster) string {
	if why := cluster.Lacks(c, cluster.CapKafkaToxic); why != "" {
		return why
	}
	if _, _, ok := toxiAPIOf(c); !ok {
		return "needs the Kafka-protocol toxic on the cluster's links through toxiproxy's HTTP API: this backend's proxies offer none (the embedded backend keeps them in-process)"
	}
	return ""
}

// needsInterBrokerToxic: the fault acts with the Kafka toxic on what one
// broker sends another (case 4 holds WriteTxnMarkers on every link from
// the coordinator's broker), so every such link must be a proxy of the
// toxiproxy; a toxiproxy with client proxies only cannot.
func needsInterBrokerToxic(c cluster.Cluster) string {
	_, ls, ok := toxiAPIOf(c)
	if !ok {
		return needsKafkaToxic(c)
	}
	for _, from := range c.Nodes() {
		for _, to := range c.Nodes() {
			if from != to && !slices.ContainsFunc(ls, func(l cluster.Link) bool {
				return l.Kind == cluster.LinkInternal && l.From == from && l.To == to
			}) {
				return fmt.Sprintf("needs the Kafka toxic on the links between brokers: the toxiproxy at %s has no proxy for broker %d's link to broker %d (internal-%d-%d)",
					c.(cluster.Links).ProxyAPI(), from, to, from, to)
			}
		}
	}
	return ""
}

// needsAll is the first reason any check gives.
func needsAll(checks ...func(cluster.Cluster) string) func(cluster.Cluster) string {
	return func(c cluster.Cluster) string {
		for _, check := range checks {
			if why := check(c); why != "" {
				return why
			}
		}
		return ""
	}
}

// needsIsolate: the fault cuts every link of one broker and heals them.
func needsIsolate(c cluster.Cluster) string { return cluster.Lacks(c, cluster.CapIsolate) }

// needsLatency: the fault slows every link and heals them.
func needsLatency(c cluster.Cluster) string { return cluster.Lacks(c, cluster.CapLatency) }

// needsReleases: a rolling upgrade swaps each broker's release on its own
// data, so the backend must know the release it runs and the one to go to.
func needsReleases(c cluster.Cluster) string {
	r, ok := c.(cluster.Releases)
	if !ok {
		return "a rolling upgrade runs brokers on another release's image: this backend cannot (the docker backend can)"
	}
	switch {
	case r.Release() == "":
		return "the brokers' release is not known (an image named with --kafka-image): name it with --kafka-version"
	case r.UpgradeTarget() == "":
		return fmt.Sprintf("no release to roll Kafka %s to: name one with --upgrade-to, or a newer one in --kafka-version", r.Release())
	case r.UpgradeTarget() == r.Release():
		return fmt.Sprintf("Kafka %s is the upgrade target itself: no newer release in --kafka-version (or --upgrade-to) to roll to", r.Release())
	}
	return ""
}

// needsNewerTarget: a roll back is only a downgrade after an upgrade.
func needsNewerTarget(c cluster.Cluster) string {
	r := c.(cluster.Releases)
	if kafkarelease.Compare(r.UpgradeTarget(), r.Release()) <= 0 {
		return fmt.Sprintf("the roll from %s to %s is no upgrade, so the roll back is no downgrade", r.Release(), r.UpgradeTarget())
	}
	return ""
}
