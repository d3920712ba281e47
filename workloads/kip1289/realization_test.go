package kip1289

import (
	"context"
	"slices"
	"testing"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestRealizationsTable: every entry is complete and named once; auto's
// preference is native, then the ledger; CheckWorker fills and enforces each
// one's consumer.
func TestRealizationsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Realizations {
		if seen[r.Name] || r.Name == "" || r.New == nil || r.Unavailable == nil || !slices.Contains(ctp.Consumers, r.Consumer) {
			t.Errorf("entry %q incomplete or named twice", r.Name)
		}
		seen[r.Name] = true
	}
	if got := RealizationNames(); !slices.Equal(got, []string{RealizationNative, RealizationLedger}) {
		t.Errorf("names %v", got)
	}
	if !BrokerSettles(RealizationNative) || BrokerSettles(RealizationLedger) || BrokerSettles("") {
		t.Error("only native leaves its acks to the broker")
	}
	cfg := ctp.WorkerConfig{Mode: ctp.Transactional, Realization: RealizationNative}
	if err := CheckWorker(&cfg); err != nil || cfg.Consumer != ctp.ConsumerSharechaos {
		t.Errorf("native: consumer %q err %v", cfg.Consumer, err)
	}
	cfg = ctp.WorkerConfig{Mode: ctp.Transactional, Realization: RealizationLedger, Consumer: ctp.ConsumerSharechaos}
	if err := CheckWorker(&cfg); err == nil {
		t.Error("the ledger on our consumer accepted")
	}
	cfg = ctp.WorkerConfig{Mode: ctp.Transactional, Realization: "carrier-pigeon"}
	if err := CheckWorker(&cfg); err == nil {
		t.Error("an unknown realization accepted")
	}
	if _, err := NewTxnAcker(context.Background(), cfg, nil); err == nil {
		t.Error("NewTxnAcker built an unknown realization")
	}
}
