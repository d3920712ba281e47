package scenarios

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

func allowedNames(e Expectation) []string {
	names := slices.Collect(maps.Keys(e.Allowed))
	sort.Strings(names)
	return names
}

// The catalog says what ORACLE.md says, row by row where it matters.
func TestExpectationsFollowTheOracle(t *testing.T) {
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
		{"graceful-stop-mid-txn", nil, nil, nil},
		{"coordinator-crash-after-endtxn", nil, dup, dupLost},
		{"crash-after-commit", nil, dup, dup},
		{"zombie-fenced", nil, dup, dupLost},
		{"explicit-abort", nil, nil, lost},
		{"partial-produce-failure", nil, nil, lost},
		{"lock-expiry-during-txn", nil, dup, dupLost},
		{"lock-expiry-race", nil, dup, dup},
		{"lock-expiry-stale-acks", nil, dup, dup},
		{"broker-kill", nil, dup, dupLost},
		{"share-state-leader-kill", nil, dup, dupLost},
		{"data-leader-kill", nil, dup, dupLost},
		{"data-leader-kill-after-endtxn", nil, dup, dupLost},
		{"partition", nil, dup, dupLost},
		{"slow-network", nil, dup, dupLost},
		{"rolling-restart", nil, dup, dupLost},
		{"late-endtxn", nil, nil, nil},
		{"random-schedule", nil, dup, dupLost},
	} {
		s, ok := Lookup(tc.scenario)
		if !ok {
			t.Errorf("%s: not in the catalog", tc.scenario)
			continue
		}
		for mode, want := range map[ctp.AckMode][]string{
			ctp.Transactional: tc.transactional, ctp.Explicit: tc.explicit, ctp.Implicit: tc.implicit,
		} {
			e := s.ExpectFor(mode)
			if want == nil {
				want = []string{}
			}
			if got := allowedNames(e); !slices.Equal(got, want) || e.NotApplicable != "" {
				t.Errorf("%s/%s: allowed %v (n/a %q), want %v", tc.scenario, mode, got, e.NotApplicable, want)
			}
			for name, why := range e.Allowed {
				if why == "" {
					t.Errorf("%s/%s allows %s without a reason", tc.scenario, mode, name)
				}
			}
			for _, never := range []string{verdict.AnomalyUnseen, verdict.AnomalyArchived, verdict.AnomalyAbortedRead,
				verdict.AnomalyTornTransaction, verdict.AnomalyPhantomOutput, verdict.AnomalyRedeliveredWhilePending,
				verdict.AnomalyDuplicateInOneDelivery, verdict.AnomalyDuplicateUnexplained,
				verdict.AnomalyLostAfterCommit, verdict.AnomalyLostUnexplained, verdict.AnomalyZombieCommit} {
				if _, ok := e.Allowed[never]; ok {
					t.Errorf("%s/%s allows %s", tc.scenario, mode, never)
				}
			}
		}
	}
}

// Case 3 does not exist without acks in the transaction: N/A, with a reason.
func TestCrashAfterAcksIsNAWithoutTransactionalAcks(t *testing.T) {
	s, _ := Lookup("crash-after-acks")
	for mode, na := range map[ctp.AckMode]bool{ctp.Transactional: false, ctp.Explicit: true, ctp.Implicit: true} {
		why := s.NAReason(mode, "", coreOnly{}, Shape{})
		if (why != "") != na || !strings.Contains(why+"case 3", "case 3") {
			t.Errorf("%s: N/A %q", mode, why)
		}
	}
}

// A mode a row does not name tolerates nothing: a new mode starts strict.
func TestAnUnnamedModeToleratesNothing(t *testing.T) {
	s, _ := Lookup("crash-after-commit")
	if e := s.ExpectFor("some-new-mode"); len(e.Allowed) != 0 || e.NotApplicable != "" {
		t.Errorf("a new mode tolerates %+v", e)
	}
}

// A caller editing its Expectation does not edit the catalog.
func TestExpectForReturnsACopy(t *testing.T) {
	s, _ := Lookup("crash-after-commit")
	e := s.ExpectFor(ctp.Explicit)
	e.Allowed[verdict.AnomalyLost] = "mine"
	if _, ok := s.ExpectFor(ctp.Explicit).Allowed[verdict.AnomalyLost]; ok {
		t.Error("the catalog changed")
	}
}

// Every row has one fault (a worker arm beside the cell's own cluster fault at most), a case, a line for --help, and every mode.
func TestRowsAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range All() {
		if seen[s.Name] {
			t.Errorf("%s: twice", s.Name)
		}
		seen[s.Name] = true
		if s.Case == "" || s.About == "" {
			t.Errorf("%s: case %q, about %q", s.Name, s.Case, s.About)
		}
		// A worker arm beside a cluster fault: the cluster fault acts on
		// the cell alone, and the arm needs no orchestrator half (a cell
		// runs one injection).
		if s.Worker != nil && s.Cluster != nil && (s.Cluster.Scope != faults.ScopeCell || s.Worker.Conduct != nil) {
			t.Errorf("%s: a worker arm beside a cluster fault that is not the cell's own, or beside a conduct", s.Name)
		}
		if s.Cluster != nil && (s.Cluster.Act == nil || s.Cluster.Needs == nil) {
			t.Errorf("%s: a cluster fault needs Act and Needs", s.Name)
		}
		if s.Worker != nil {
			if ok, at := s.Worker.Action.ActsAt(s.Worker.Point); !ok {
				t.Errorf("%s: the loop does not %s at %s (only at %v)", s.Name, s.Worker.Action, s.Worker.Point, at)
			}
		}
		if s.Worker != nil && s.Worker.Action == ctp.ActionStall && s.Worker.Stall == nil {
			t.Errorf("%s: a stall without a length", s.Name)
		}
		for _, m := range ctp.Modes {
			if _, ok := s.Expect[m]; !ok {
				t.Errorf("%s: no expectation for %s", s.Name, m)
			}
		}
	}
	for _, p := range Profiles() {
		full, _ := LookupProfile(p.Name)
		for _, n := range full.Scenarios {
			if _, ok := Lookup(n); !ok {
				t.Errorf("profile %s names %q, which is not in the catalog", p.Name, n)
			}
		}
	}
}

type coreOnly struct{}

func (coreOnly) Name() string                { return "core" }
func (coreOnly) Nodes() []cluster.NodeID     { return []cluster.NodeID{1, 2, 3} }
func (coreOnly) Bootstrap() []string         { return []string{"127.0.0.1:1"} }
func (coreOnly) Close(context.Context) error { return nil }

// random-schedule's menu is the catalog's beyond cluster rows, nothing else.
func TestScheduleMenuIsTheBeyondClusterRows(t *testing.T) {
	var names []string
	for _, p := range scheduleMenu() {
		names = append(names, p.Name)
	}
	want := []string{"broker-kill", "share-state-leader-kill", "data-leader-kill", "leader-move", "state-write-reset", "partition", "broker-pause", "link-cut", "slow-network",
		"rolling-restart", "late-endtxn"}
	if !slices.Equal(names, want) {
		t.Errorf("menu %v, want %v", names, want)
	}
	// On the embedded backend only the slow network can run: too few to mix.
	s, _ := Lookup("random-schedule")
	var emb cluster.Cluster = (*embedded.Cluster)(nil)
	if why := s.NAReason(ctp.Explicit, "", emb, Shape{}); !strings.Contains(why, "slow-network") {
		t.Errorf("random-schedule on embedded: N/A %q, want one naming what it could run", why)
	}
}
