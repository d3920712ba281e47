package main

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

func TestParseKIPFlags(t *testing.T) {
	rest, cfg, err := parseKIPFlags([]string{"-ports", "1,2", "--kip1289-pending-lock", "hold", "-kip1289-add-share-acks-key=3000", "-sync"}, "expire", "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rest, []string{"-ports", "1,2", "-sync"}) {
		t.Errorf("rest %q", rest)
	}
	if cfg.PendingLock != kfake.KIP1289PendingLockHold || cfg.AddShareAcksToTxnKey != 3000 || cfg.TxnShareAcknowledgeKey != 12891 {
		t.Errorf("config %+v", cfg)
	}
	if _, cfg, _ := parseKIPFlags(nil, "hold", ""); cfg.PendingLock != kfake.KIP1289PendingLockHold {
		t.Errorf("environment policy ignored: %+v", cfg)
	}
	if _, cfg, err := parseKIPFlags([]string{"--kip1289-broken", "stage-first-partition-only"}, "", ""); err != nil || cfg.Broken != kfake.KIP1289BrokenStageFirstPartitionOnly {
		t.Errorf("--kip1289-broken: %+v, %v", cfg, err)
	}
	if _, cfg, err := parseKIPFlags(nil, "", "stage-first-partition-only"); err != nil || cfg.Broken != kfake.KIP1289BrokenStageFirstPartitionOnly {
		t.Errorf("environment defect ignored: %+v, %v", cfg, err)
	}
	if _, _, err := parseKIPFlags(nil, "", "everything"); err == nil {
		t.Error("an unknown defect in the environment parsed")
	}
	for _, bad := range [][]string{{"--kip1289-pending-lock"}, {"--kip1289-pending-lock", "never"}, {"--kip1289-txn-share-ack-key", "-3"},
		{"--kip1289-broken", "everything"}} {
		if _, _, err := parseKIPFlags(bad, "", ""); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
