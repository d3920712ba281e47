package harness

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestClientsUsage: an unknown client, or one named twice, is a usage error
// (64) that names the valid clients; no --client is the default go alone.
func TestClientsUsage(t *testing.T) {
	c := Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}}.WithDefaults()
	if len(c.Clients) != 1 || c.Clients[0] != "go" {
		t.Fatalf("default clients %v, want [go]", c.Clients)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("default: %v", err)
	}
	for _, bad := range [][]string{{"go", "rust"}, {"go", "go"}} {
		c.Clients = bad
		err := c.Validate()
		var u *UsageError
		if !errors.As(err, &u) {
			t.Errorf("--client %v: %v, want a usage error", bad, err)
			continue
		}
		if bad[1] == "rust" && !strings.Contains(err.Error(), "go, java") {
			t.Errorf("--client %v: %q does not name the valid clients", bad, err)
		}
	}
}

// TestClientRealizations: the Java worker alone on a run that asks for
// native is a usage error naming --txn-acks ledger; with auto it waits for
// the brokers' answer (TestClientDecided); beside the Go worker it is not
// (its native cells are N/A), and with the ledger it runs alone.
func TestClientRealizations(t *testing.T) {
	t.Setenv(workerset.JavaWorkerEnv, os.Args[0]) // any existing file: the jar's presence is not what is tested
	for _, tc := range []struct {
		clients []string
		txnAcks string
		usage   bool
	}{
		{[]string{"java"}, "auto", false},
		{[]string{"java"}, "native", true},
		{[]string{"java"}, "ledger", false},
		{[]string{"go", "java"}, "auto", false},
	} {
		c := Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: tc.txnAcks, Clients: tc.clients}.WithDefaults()
		err := c.checkClients()
		var u *UsageError
		if got := errors.As(err, &u); got != tc.usage || (tc.usage && !strings.Contains(err.Error(), "--txn-acks ledger")) {
			t.Errorf("--client %v --txn-acks %s: %v, want usage error %v", tc.clients, tc.txnAcks, err, tc.usage)
		}
	}
}

// TestClientDecided: --txn-acks auto with the Java worker alone runs the
// ledger where the brokers lack KIP-1289, and is refused, naming --txn-acks
// ledger, only where the brokers' answer picked native; beside the Go
// worker native is no refusal (the Java cells of it are N/A).
func TestClientDecided(t *testing.T) {
	for _, tc := range []struct {
		clients     []string
		realization string
		usage       bool
	}{
		{[]string{"java"}, ctp.RealizationLedger, false},
		{[]string{"java"}, ctp.RealizationNative, true},
		{[]string{"go"}, ctp.RealizationNative, false},
		{[]string{"go", "java"}, ctp.RealizationNative, false},
	} {
		c := Common{Clients: tc.clients}
		err := c.checkDecided([]TxnDecision{{Mode: ctp.Transactional, Realization: tc.realization}})
		var u *UsageError
		if got := errors.As(err, &u); got != tc.usage || (tc.usage && !strings.Contains(err.Error(), "--txn-acks ledger")) {
			t.Errorf("--client %v, decided %s: %v, want usage error %v", tc.clients, tc.realization, err, tc.usage)
		}
	}
}
