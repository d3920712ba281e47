package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/suites/conformancekit"
	"github.com/sharechaos/sharechaos/workloads/kip1289/conformance"
)

// TestConformanceUsageErrors: a bad flag, a flag of another backend, an
// unknown case and a bad key are usage errors naming it, before anything
// runs and without a report directory.
func TestConformanceUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--backend", "kafka"}, `--backend "kafka"`},
		{[]string{"--kafka-image", "x:1"}, "--kafka-image goes with --backend docker"},
		{[]string{"--bootstrap", "127.0.0.1:1"}, "go with --backend external"},
		{[]string{"--case", "no-such-case"}, `--case "no-such-case"`},
		{[]string{"--kip1289-keys", "1"}, "--kip1289-keys"},
		{[]string{"--backend", "external"}, "needs --bootstrap"},
		{[]string{"--kip1289-pending-lock", "never"}, `--kip1289-pending-lock "never"`},
	} {
		out := filepath.Join(t.TempDir(), "report")
		code, _, errOut := run(append([]string{"conformance", "--out", out}, c.args...)...)
		if code != 64 || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: exit %d, stderr %q, want 64 saying %q", c.args, code, errOut, c.says)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: report directory written", c.args)
		}
	}
	code, stdout, _ := run("conformance", "--list")
	if code != 0 || !strings.Contains(stdout, "one-request-several-partitions-commit\n") || strings.Count(stdout, "\n") != len(conformance.Cases) {
		t.Errorf("--list: exit %d, %q", code, stdout)
	}
}

// TestConformanceRefusesABrokerWithoutKIP1289: the kit against a cluster
// that does not serve the KIP's APIs (stock kfake, as --backend external) is
// a usage error naming both missing APIs, with nothing written.
func TestConformanceRefusesABrokerWithoutKIP1289(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a broker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := embedded.Start(ctx, embedded.Options{Brokers: 1, LogPath: filepath.Join(t.TempDir(), "broker.log")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Close(context.Background()) }()
	out := filepath.Join(t.TempDir(), "report")
	code, _, errOut := run("conformance", "--backend", "external", "--bootstrap", strings.Join(cl.Bootstrap(), ","), "--out", out)
	if code != 64 || !strings.Contains(errOut, "do not speak KIP-1289: missing AddShareAcksToTxn (key 12890), TxnShareAcknowledge (key 12891)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("report directory written for a usage error")
	}
}

// TestConformanceOnTheReferenceBroker: the kit's command on the reference
// broker, two cases: both PASS, the report's JSON has each case with the
// requests it sent and the answers, junit.xml and summary.md exist; a
// failover case is N/A with its reason.
func TestConformanceOnTheReferenceBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a broker")
	}
	out := filepath.Join(t.TempDir(), "report")
	code, stdout, errOut := run("conformance", "--out", out,
		"--case", "one-request-several-topics-commit,refusal-survives-a-siblings-retry")
	if code == 64 && strings.Contains(errOut, "make refbroker") {
		t.Skipf("the reference broker is not built (make refbroker): %s", errOut)
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	raw, err := os.ReadFile(filepath.Join(out, "conformance.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep conformancekit.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Kind != conformance.Reference || len(rep.Cases) != 2 {
		t.Fatalf("report %+v", rep)
	}
	shaped, failover := rep.Cases[0], rep.Cases[1]
	if shaped.Verdict != "PASS" || len(shaped.Exchanges) < 2 || !strings.Contains(shaped.Exchanges[1].Request, "TxnShareAcknowledge v0") ||
		!strings.Contains(shaped.Exchanges[1].Answer, "NONE") {
		t.Errorf("several topics: %+v", shaped)
	}
	if failover.Verdict != "N/A" || !strings.Contains(failover.Reason, "needs a leader move") {
		t.Errorf("failover on one process: %+v", failover)
	}
	for _, f := range []string{"summary.md", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
