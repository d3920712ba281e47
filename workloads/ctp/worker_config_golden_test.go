package ctp

import (
	"encoding/json"
	"github.com/sharechaos/sharechaos/internal/golden"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
)

// TestWorkerConfigGolden keeps testdata/worker_config.golden.json equal to
// the JSON the orchestrator writes for a worker (suites/workers.go: indented
// json.Marshal of WorkerConfig); -update rewrites it. The Java worker's test
// (clients/java/worker) parses this file and checks every field.
func TestWorkerConfigGolden(t *testing.T) {
	cfg := WorkerConfig{
		Bootstrap: []string{"127.0.0.1:9092", "127.0.0.1:9093"}, Group: "sc-g", InputTopic: "sc-in", OutputTopic: "sc-out",
		LedgerTopic: "sc-ledger", TransactionalID: "sc-w2", Mode: Transactional, Realization: RealizationLedger,
		Consumer: ConsumerKgo, Slot: 2, Incarnation: 3, HistoryPath: "/tmp/h/w2.3.jsonl", MaxRecords: 10,
		TxnTimeout: Duration(10 * time.Second), DeliveryTimeout: Duration(5 * time.Second), RequestTimeout: Duration(1500 * time.Millisecond),
		Arm: Arm{Fault: "lock-expiry-during-txn", Point: PointBeforeCommit, Action: ActionStall, Batch: 4, Stall: Duration(17*time.Second + 500*time.Millisecond)},
		Client: clientcfg.Config{Protocol: clientcfg.SASLSSL, Mechanism: clientcfg.MechScramSHA512, Username: "u",
			CAFile: "/ca.pem", SkipHostnameCheck: true},
		MemberTags: MemberTagsSend,
		Renew:      &Renew{Every: Duration(5 * time.Second), Lock: Duration(15 * time.Second)},
		Poison:     &Poison{Every: 100, Offset: 7},
	}
	want, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "worker_config.golden.json", want, "go test ./workloads/ctp -run TestWorkerConfigGolden")
}
