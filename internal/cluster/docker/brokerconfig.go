package docker

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// BrokerDefaults are the broker settings every cluster gets before
// Options.BrokerConfigs: share groups on, internal topics replicated like
// the suite's own topics, and CONTRACT.md's defaults for chaos runs. Reports
// print them.
func BrokerDefaults(brokers int) map[string]string {
	rf, minISR := 3, 2
	if brokers < 3 {
		rf, minISR = brokers, 1
	}
	return map[string]string{
		// Internal topics: RF 3 / min ISR 2 on three brokers, 1/1 on one.
		// Fewer partitions than Kafka's 50 keep start-up and memory small;
		// ten still spread the coordinators over every broker.
		"offsets.topic.replication.factor":                 strconv.Itoa(rf),
		"offsets.topic.num.partitions":                     "10",
		"transaction.state.log.replication.factor":         strconv.Itoa(rf),
		"transaction.state.log.min.isr":                    strconv.Itoa(minISR),
		"transaction.state.log.num.partitions":             "10",
		"share.coordinator.state.topic.replication.factor": strconv.Itoa(rf),
		"share.coordinator.state.topic.min.isr":            strconv.Itoa(minISR),
		"share.coordinator.state.topic.num.partitions":     "10",
		// The suite's own topics (and any created without settings).
		"default.replication.factor": strconv.Itoa(rf),
		"min.insync.replicas":        strconv.Itoa(minISR),

		// Chaos: groups may use locks down to 1 s (the group config sets the
		// lock itself); a record is archived only after 10 deliveries (the
		// maximum), so a one-shot fault never archives it; a timed-out
		// transaction is aborted within a second, not ten.
		"group.share.min.record.lock.duration.ms":                     "1000",
		"group.share.delivery.count.limit":                            "10",
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
		"group.initial.rebalance.delay.ms":                            "0",
		// A crashed worker's share-group membership expires after 10 s,
		// not 45 (until then the assignor can give partitions to the
		// ghost); members heartbeat every second, so a new member gets its
		// assignment at once (also the start-up probe's).
		"group.share.session.timeout.ms":           "10000",
		"group.share.min.session.timeout.ms":       "6000",
		"group.share.heartbeat.interval.ms":        "1000",
		"group.share.min.heartbeat.interval.ms":    "1000",
		"group.share.initialize.retry.interval.ms": "5000",
		// A follower that stops fetching leaves the ISR after 10 s, not 30.
		"replica.lag.time.max.ms": "10000",

		// Two cores for three brokers: fewer threads than Kafka's defaults.
		"num.network.threads":       "2",
		"num.io.threads":            "4",
		"num.replica.fetchers":      "1",
		"background.threads":        "4",
		"group.coordinator.threads": "2",
	}
}

// brokerWiring is what one broker's server.properties needs to know about
// the cluster's wiring.
type brokerWiring struct {
	node    int
	brokers int
	// clientAddr is the address clients on the host dial for this broker:
	// its client proxy's published port on 127.0.0.1.
	clientAddr string
	// security is the client listener's settings when it is secured
	// (security.go); they replace the wiring's PLAINTEXT for it.
	security map[string]string
}

// Wired reports whether the backend sets key itself for the cluster's
// wiring (listeners, addresses, roles, the quorum, the data directory): a
// user's override of it would not take (serverProperties writes the wiring
// last), so it is refused before anything starts.
func Wired(key string) bool {
	_, ok := wiring(brokerWiring{node: 1, brokers: 1})[key]
	return ok
}

// wiring is what one broker's listeners, addresses and roles are.
func wiring(w brokerWiring) map[string]string {
	voters := make([]string, 0, w.brokers)
	for n := 1; n <= w.brokers; n++ {
		voters = append(voters, fmt.Sprintf("%d@%s:%d", n, proxyAlias, proxyControllerBase+n))
	}
	return map[string]string{
		"process.roles":            "broker,controller",
		"node.id":                  strconv.Itoa(w.node),
		"controller.quorum.voters": strings.Join(voters, ","),
		"listeners": fmt.Sprintf("CLIENT://0.0.0.0:%d,INTERNAL://0.0.0.0:%d,CONTROLLER://0.0.0.0:%d",
			brokerClientPort, brokerInternalPort, brokerControllerPort),
		"advertised.listeners": fmt.Sprintf("CLIENT://%s,INTERNAL://%s:%d,CONTROLLER://%s:%d",
			w.clientAddr, proxyAlias, proxyInternalBase+w.node, proxyAlias, proxyControllerBase+w.node),
		"listener.security.protocol.map": "CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"inter.broker.listener.name":     "INTERNAL",
		"controller.listener.names":      "CONTROLLER",
		"log.dirs":                       "/var/lib/kafka/data",
	}
}

// serverProperties renders one broker's configuration: its listeners and
// the proxy addresses it advertises (fixed; the user's overrides cannot
// bypass the proxies), over the defaults and the user's overrides.
func serverProperties(w brokerWiring, overrides map[string]string) string {
	header := fmt.Sprintf("broker %d of %d, written by the sharechaos docker backend", w.node, w.brokers)
	return renderProperties(header, w.brokers, overrides, wiring(w), w.security)
}

// renderProperties is a server.properties: the defaults, then the user's
// overrides, then the wiring (and a secured listener's settings), which
// always win, sorted by key under a header comment.
func renderProperties(header string, brokers int, overrides map[string]string, wired ...map[string]string) string {
	props := BrokerDefaults(brokers)
	maps.Copy(props, overrides)
	for _, w := range wired {
		maps.Copy(props, w)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", header)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	return b.String()
}
