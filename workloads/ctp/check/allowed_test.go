package check_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// The table says what ORACLE.md says, row by row where it matters.
func TestAllowedFor(t *testing.T) {
	dup := []string{verdict.AnomalyDuplicate}
	lost := []string{verdict.AnomalyAckWithoutOutput, verdict.AnomalyLost}
	dupLost := []string{verdict.AnomalyAckWithoutOutput, verdict.AnomalyDuplicate, verdict.AnomalyLost}
	for _, tc := range []struct {
		scenario                          string
		transactional, explicit, implicit []string
	}{
		{"steady", nil, nil, nil},
		{"crash-before-begin", nil, nil, dup},
		{"crash-after-send", nil, nil, dup},
		{"crash-after-send-fresh-id", nil, nil, dup},
		{"coordinator-crash-after-endtxn", nil, dup, dupLost},
		{"crash-after-commit", nil, dup, dup},
		{"zombie-fenced", nil, dup, dupLost},
		{"explicit-abort", nil, nil, lost},
		{"partial-produce-failure", nil, nil, lost},
		{"lock-expiry-during-txn", nil, dup, dupLost},
		{"broker-kill", nil, dup, dupLost},
		{"data-leader-kill", nil, dup, dupLost},
		{"late-endtxn", nil, nil, nil},
		{"random-schedule", nil, dup, dupLost},
		{"broker-kill/some-variant", nil, dup, dupLost},
	} {
		for mode, want := range map[ctp.AckMode][]string{
			ctp.Transactional: tc.transactional, ctp.Explicit: tc.explicit, ctp.Implicit: tc.implicit,
		} {
			a, err := check.AllowedFor(mode, tc.scenario)
			if err != nil {
				t.Errorf("%s/%s: %v", tc.scenario, mode, err)
				continue
			}
			if want == nil {
				want = []string{}
			}
			if got := a.Names(); !reflect.DeepEqual(got, want) || a.NotApplicable != "" {
				t.Errorf("%s/%s: allowed %v (n/a %q), want %v", tc.scenario, mode, got, a.NotApplicable, want)
			}
			for _, never := range []string{verdict.AnomalyUnseen, verdict.AnomalyArchived, verdict.AnomalyAbortedRead,
				verdict.AnomalyTornTransaction, verdict.AnomalyPhantomOutput, verdict.AnomalyRedeliveredWhilePending,
				verdict.AnomalyDuplicateInOneDelivery, verdict.AnomalyDuplicateUnexplained,
				verdict.AnomalyLostAfterCommit, verdict.AnomalyLostUnexplained} {
				if a.Allows(never) {
					t.Errorf("%s/%s allows %s", tc.scenario, mode, never)
				}
			}
		}
	}
}

// Case 3 does not exist without acks in the transaction: N/A, with a reason.
func TestAllowedForCrashAfterAcks(t *testing.T) {
	for mode, na := range map[ctp.AckMode]bool{ctp.Transactional: false, ctp.Explicit: true, ctp.Implicit: true} {
		a, err := check.AllowedFor(mode, "crash-after-acks")
		if err != nil {
			t.Fatal(err)
		}
		if (a.NotApplicable != "") != na || len(a.Names()) != 0 {
			t.Errorf("%s: %+v", mode, a)
		}
	}
}

func TestAllowedForRejectsUnknownNames(t *testing.T) {
	if _, err := check.AllowedFor(ctp.Explicit, "no-such-scenario"); err == nil ||
		!strings.Contains(err.Error(), "unknown scenario") {
		t.Errorf("unknown scenario: err %v", err)
	}
	if _, err := check.AllowedFor("sometimes", "steady"); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("unknown mode: err %v", err)
	}
}

// A caller editing its Allowed does not edit the table.
func TestAllowedForReturnsACopy(t *testing.T) {
	a, _ := check.AllowedFor(ctp.Explicit, "crash-after-commit")
	a.Anomalies[verdict.AnomalyLost] = "mine"
	if b, _ := check.AllowedFor(ctp.Explicit, "crash-after-commit"); b.Allows(verdict.AnomalyLost) {
		t.Error("the table changed")
	}
}

// Every fault the suite can run has a row, in every mode.
func TestAllowedForKnowsEveryFault(t *testing.T) {
	for _, name := range faults.Names() {
		for _, mode := range ctp.Modes {
			if _, err := check.AllowedFor(mode, name); err != nil {
				t.Errorf("%s/%s: %v", name, mode, err)
			}
		}
	}
}
