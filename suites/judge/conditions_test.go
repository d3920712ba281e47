package judge

import (
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/scenarios"
)

// A re-check judges by the conditions the live run had: the policy from
// its config key, or from the broker note of runs stored before it; nothing
// when the run's broker was not the reference broker.
func TestRunConditions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]string
		want   scenarios.Conditions
	}{
		{"key", map[string]string{ConfigPendingLock: "hold", "record_lock": "15s"},
			scenarios.Conditions{PendingLock: "hold", Lock: 15 * time.Second}},
		{"old-broker-note", map[string]string{"record_lock": "15s",
			"broker": "broker: refbroker (kfake with KIP-1289, pending lock hold) (refbroker /x/bin/sharechaos-refbroker, pending lock hold)"},
			scenarios.Conditions{PendingLock: "hold", Lock: 15 * time.Second}},
		{"stock-kfake", map[string]string{"record_lock": "20s", "broker": "broker: kfake (stock, no KIP-1289) (stock kfake: the native realization was not asked for)"},
			scenarios.Conditions{Lock: 20 * time.Second}},
		{"nothing", nil, scenarios.Conditions{}},
	} {
		if got := runConditions(tc.config); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// A re-check's shape is the stored run's: its config, with the brokers the
// cluster really had; nothing where it does not say.
func TestRunShape(t *testing.T) {
	res := result.Result{Config: map[string]string{"workers": "1", "partitions": "1", "max_records_per_poll": "1", "brokers": "3"},
		Cluster: &result.ClusterInfo{Brokers: 5}}
	if got, want := runShape(res), (scenarios.Shape{Workers: 1, Partitions: 1, Batch: 1, Brokers: 5}); got != want {
		t.Errorf("shape %+v, want %+v", got, want)
	}
	if got := runShape(result.Result{}); got != (scenarios.Shape{}) {
		t.Errorf("no config: shape %+v, want unknown", got)
	}
}
