package embedded

import (
	"testing"
	"time"
)

func TestDefaultBrokerConfigs(t *testing.T) {
	got := DefaultBrokerConfigs(2 * time.Second)
	want := map[string]string{
		"share.record.lock.sweep.interval.ms": "100",
		"group.share.record.lock.duration.ms": "2000",
		"group.share.delivery.count.limit":    "10",
		"transaction.max.timeout.ms":          "2000",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestOptionsBrokerConfigsOverrideOrder(t *testing.T) {
	o := Options{
		RecordLock:    5 * time.Second,
		DeliveryLimit: 4,
		BrokerConfigs: map[string]string{"transaction.max.timeout.ms": "900000", "x": "y"},
	}.withDefaults()
	got := o.brokerConfigs()
	for k, v := range map[string]string{
		"group.share.record.lock.duration.ms": "5000",   // from RecordLock
		"group.share.delivery.count.limit":    "4",      // from DeliveryLimit
		"transaction.max.timeout.ms":          "900000", // the caller's override wins
		"share.record.lock.sweep.interval.ms": "100",
		"x":                                   "y",
	} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if o.Brokers != 3 || o.TxnMaxTimeout != 5*time.Second {
		t.Errorf("defaults: brokers %d, txn max timeout %v", o.Brokers, o.TxnMaxTimeout)
	}
}
