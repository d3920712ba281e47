package docker

import (
	"strings"
	"testing"
)

func parseProps(t *testing.T, s string) map[string]string {
	t.Helper()
	props := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("line %q is not key=value", line)
		}
		props[k] = v
	}
	return props
}

func TestServerPropertiesReplicatesInternalTopicsByClusterSize(t *testing.T) {
	for _, tc := range []struct {
		brokers    int
		rf, minISR string
	}{{3, "3", "2"}, {1, "1", "1"}, {5, "3", "2"}} {
		props := parseProps(t, serverProperties(brokerWiring{node: 1, brokers: tc.brokers, clientAddr: "127.0.0.1:1"}, nil))
		for _, k := range []string{"offsets.topic.replication.factor", "transaction.state.log.replication.factor",
			"share.coordinator.state.topic.replication.factor", "default.replication.factor"} {
			if props[k] != tc.rf {
				t.Errorf("%d brokers: %s = %q, want %s", tc.brokers, k, props[k], tc.rf)
			}
		}
		for _, k := range []string{"transaction.state.log.min.isr", "share.coordinator.state.topic.min.isr", "min.insync.replicas"} {
			if props[k] != tc.minISR {
				t.Errorf("%d brokers: %s = %q, want %s", tc.brokers, k, props[k], tc.minISR)
			}
		}
	}
}

func TestServerPropertiesAdvertisesOnlyProxies(t *testing.T) {
	props := parseProps(t, serverProperties(brokerWiring{node: 2, brokers: 3, clientAddr: "127.0.0.1:40002"}, nil))
	want := map[string]string{
		"node.id":                  "2",
		"advertised.listeners":     "CLIENT://127.0.0.1:40002,INTERNAL://toxiproxy:19102,CONTROLLER://toxiproxy:19202",
		"controller.quorum.voters": "1@toxiproxy:19201,2@toxiproxy:19202,3@toxiproxy:19203",
	}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
}

func TestServerPropertiesOverridesDefaultsButNotWiring(t *testing.T) {
	props := parseProps(t, serverProperties(brokerWiring{node: 1, brokers: 3, clientAddr: "127.0.0.1:1"},
		map[string]string{
			"group.share.delivery.count.limit": "5",                    // a default: the user wins
			"log.retention.ms":                 "1000",                 // new: added
			"advertised.listeners":             "CLIENT://bypass:9092", // wiring: must not win
		}))
	if props["group.share.delivery.count.limit"] != "5" {
		t.Errorf("override of a default lost: %q", props["group.share.delivery.count.limit"])
	}
	if props["log.retention.ms"] != "1000" {
		t.Errorf("extra config lost: %q", props["log.retention.ms"])
	}
	if strings.Contains(props["advertised.listeners"], "bypass") {
		t.Errorf("an override bypassed the proxies: %q", props["advertised.listeners"])
	}
}

func TestBrokerDefaultsCarryChaosSettings(t *testing.T) {
	d := BrokerDefaults(3)
	for k, v := range map[string]string{
		"group.share.min.record.lock.duration.ms":                     "1000",
		"group.share.delivery.count.limit":                            "10",
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
	} {
		if d[k] != v {
			t.Errorf("%s = %q, want %q", k, d[k], v)
		}
	}
}
