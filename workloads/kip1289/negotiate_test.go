package kip1289

import (
	"slices"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// What the brokers advertise decides the TxnShareAcknowledge version, and
// with it where the client sends the request: v0 to the share coordinator
// (the reference broker), v1 to the partition leader (the patched Kafka). A
// cluster whose brokers would get different versions is not native: one
// client cannot route the same acks two ways.
func TestSupportFromVersions(t *testing.T) {
	keys := DefaultAPIKeys()
	add, ack := keys.AddShareAcksToTxn, keys.TxnShareAcknowledge
	broker := func(node int32, ackMin, ackMax int16) BrokerAPIs {
		return BrokerAPIs{Node: node, Versions: map[int16][2]int16{add: {0, 0}, ack: {ackMin, ackMax}}}
	}
	for _, tc := range []struct {
		name        string
		brokers     []BrokerAPIs
		native      bool
		version     int16
		route       string
		missingWord string
	}{
		{"reference broker: v0 only", []BrokerAPIs{broker(0, 0, 0), broker(1, 0, 0)}, true, 0, "share coordinator", ""},
		{"patched Kafka: v1 only", []BrokerAPIs{broker(1, 1, 1)}, true, 1, "partition leader", ""},
		{"a broker serving both: the newest", []BrokerAPIs{broker(1, 0, 1)}, true, 1, "partition leader", ""},
		{"a future v2 broker: the newest this client speaks", []BrokerAPIs{broker(1, 0, 2)}, true, 1, "partition leader", ""},
		{"v2 only: nothing this client speaks", []BrokerAPIs{broker(1, 2, 2)}, false, -1, "", "TxnShareAcknowledge (key 12891)"},
		{"mixed cluster", []BrokerAPIs{broker(1, 1, 1), broker(2, 0, 0)}, false, -1, "", "at one version on every broker"},
		{"stock broker", []BrokerAPIs{{Node: 1, Versions: map[int16][2]int16{}}}, false, -1, "", "AddShareAcksToTxn (key 12890)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := SupportFrom(keys, tc.brokers)
			if s.Native != tc.native || s.TxnShareAcknowledgeVersion != tc.version || s.Route() != tc.route {
				t.Errorf("support %+v route %q, want native %v version %d route %q", s, s.Route(), tc.native, tc.version, tc.route)
			}
			if s.Brokers != len(tc.brokers) {
				t.Errorf("brokers %d, want %d", s.Brokers, len(tc.brokers))
			}
			if tc.missingWord != "" && !slices.ContainsFunc(s.Missing, func(m string) bool { return strings.Contains(m, tc.missingWord) }) {
				t.Errorf("missing %q, want one naming %q", s.Missing, tc.missingWord)
			}
		})
	}
}

// kgo sends the highest version both sides allow: the client's table must
// allow v1 of TxnShareAcknowledge and only v0 of AddShareAcksToTxn.
func TestClientAllowsTxnShareAcknowledgeV1(t *testing.T) {
	keys := DefaultAPIKeys()
	vs := keys.WithKeys(nil)
	if v, ok := vs.LookupMaxKeyVersion(keys.TxnShareAcknowledge); !ok || v != wire.TxnShareAcknowledgeToLeader {
		t.Errorf("TxnShareAcknowledge max version %d (%v), want %d", v, ok, wire.TxnShareAcknowledgeToLeader)
	}
	if v, ok := vs.LookupMaxKeyVersion(keys.AddShareAcksToTxn); !ok || v != wire.AddShareAcksToTxnVersion {
		t.Errorf("AddShareAcksToTxn max version %d (%v), want %d", v, ok, wire.AddShareAcksToTxnVersion)
	}
}
