package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

func TestChooseEmbeddedBroker(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, refBrokerBinary)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	native := Common{Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: "native", PendingLock: PendingLockHold}.WithDefaults()

	t.Setenv(RefBrokerEnv, bin)
	b, err := native.ChooseEmbeddedBroker()
	if err != nil || b.Reference.Binary != bin || b.Reference.PendingLock != PendingLockHold || b.Name() != "refbroker" {
		t.Fatalf("native with the binary: %+v, %v", b, err)
	}
	if d := b.Describe(); !strings.Contains(d, "refbroker") || !strings.Contains(d, "hold") {
		t.Errorf("describe %q names neither the broker nor the policy", d)
	}

	missing := filepath.Join(dir, "nope")
	t.Setenv(RefBrokerEnv, missing)
	_, err = native.ChooseEmbeddedBroker()
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "make refbroker") {
		t.Errorf("native without the binary: %v, want a usage error naming %s and make refbroker", err, missing)
	}
	auto := native
	auto.TxnAcks = "auto"
	if b, err := auto.ChooseEmbeddedBroker(); err != nil || b.Name() != "kfake" || !strings.Contains(b.Note, "ledger") {
		t.Errorf("auto without the binary: %+v, %v, want stock kfake and a note", b, err)
	}

	t.Setenv(RefBrokerEnv, RefBrokerOff)
	if b, err := native.ChooseEmbeddedBroker(); err != nil || b.Name() != "kfake" {
		t.Errorf("%s=%s: %+v, %v, want stock kfake", RefBrokerEnv, RefBrokerOff, b, err)
	}
	t.Setenv(RefBrokerEnv, bin)
	ledger := native
	ledger.TxnAcks = "ledger"
	if b, _ := ledger.ChooseEmbeddedBroker(); b.Name() != "kfake" {
		t.Errorf("ledger: %+v, want stock kfake", b)
	}
	both := native
	both.Realizations = []string{ctp.RealizationLedger, ctp.RealizationNative}
	if b, _ := both.ChooseEmbeddedBroker(); b.Name() != "refbroker" {
		t.Errorf("transactional/ledger,transactional/native: %+v, want the reference broker", b)
	}
}

func TestModeRealizations(t *testing.T) {
	var c Common
	l := CommonLists{Modes: ListFlag{"transactional/native", "transactional/ledger", "explicit"}}
	if err := l.Apply(&c); err != nil {
		t.Fatal(err)
	}
	if len(c.Modes) != 2 || c.Modes[0] != ctp.Transactional || c.Modes[1] != ctp.Explicit {
		t.Errorf("modes %v, want transactional, explicit", c.Modes)
	}
	if strings.Join(c.Realizations, ",") != "native,ledger" {
		t.Errorf("realizations %v, want native, ledger", c.Realizations)
	}
	if err := c.WithDefaults().Validate(); err != nil {
		t.Error(err)
	}
	bad := Common{Modes: []ctp.AckMode{ctp.Transactional}, Realizations: []string{"emulated"}}.WithDefaults()
	if err := bad.Validate(); err == nil {
		t.Error("transactional/emulated validated")
	}
	if err := (CommonLists{Modes: ListFlag{"explicit/native"}}).Apply(&Common{}); err == nil {
		t.Error("explicit/native accepted")
	}
}
