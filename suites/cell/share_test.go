package cell

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// testMember is a run with what a Share touches, its timeline in a
// temporary directory.
func testMember(t *testing.T, index int, prefix string) *run {
	t.Helper()
	m, err := shareMember(index, prefix, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.timeline.Close() })
	return m
}

// TestFaultShareOneInjectionForTheRow: the last cell to join runs Align
// (aimed at the lowest plan index, the others as Env.Cells, renamable), the
// fault acts once when every cell runs its workers, every cell sees its
// events, and no cell passes drainedAndWait before the fault returned.
func TestFaultShareOneInjectionForTheRow(t *testing.T) {
	var acts, aligns atomic.Int32
	var released atomic.Bool
	mech := faults.Mechanism{Scope: faults.ScopeShared,
		Align: func(ctx context.Context, env faults.Env) error {
			aligns.Add(1)
			if env.Topology.Prefix != "c0" || len(env.Cells) != 2 {
				t.Errorf("align aimed at %s with %d others, want c0 and 2", env.Topology.Prefix, len(env.Cells))
			}
			for _, c := range env.Cells {
				c.Group += "-renamed"
			}
			return nil
		},
		Act: func(ctx context.Context, env faults.Env) error {
			acts.Add(1)
			env.Fired(history.Event{Type: history.Info, F: history.FFaultFired, Attrs: map[string]string{"node": "1"}})
			time.Sleep(50 * time.Millisecond)
			released.Store(true)
			return nil
		}}
	s := scenarios.Scenario{Name: "shared-test", Cluster: &scenarios.ClusterFault{Mechanism: mech}}
	f := NewShare(s, nil, 1, 7, 3)
	members := []*run{testMember(t, 2, "c2"), testMember(t, 0, "c0"), testMember(t, 1, "c1")}
	var wg sync.WaitGroup
	for _, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			defer f.exit(context.Background(), m)
			if err := f.join(ctx, m); err != nil {
				t.Error(err)
				return
			}
			f.running(m)
			rep, err := f.drainedAndWait(m)
			if err != nil || !released.Load() {
				t.Errorf("%s: returned before the shared fault ended (err %v)", m.topo.Prefix, err)
			}
			if len(rep.Fired) != 0 { // Act above fires through env.Fired only
				t.Errorf("report: %+v", rep)
			}
		}()
	}
	wg.Wait()
	if acts.Load() != 1 || aligns.Load() != 1 {
		t.Fatalf("acts %d, aligns %d: want one of each for the row", acts.Load(), aligns.Load())
	}
	for _, m := range members {
		want := m.topo.Prefix + "-group"
		if m.topo.Prefix != "c0" {
			want += "-renamed"
		}
		if m.topo.Group != want {
			t.Errorf("%s: group %s, want %s", m.topo.Prefix, m.topo.Group, want)
		}
		m.timeline.Close()
	}
}

// TestFaultShareCellThatStopsEarly: a cell that exits before joining (an
// N/A mode, a failed setup) never holds up the others, and the fault still
// acts for the cells left.
func TestFaultShareCellThatStopsEarly(t *testing.T) {
	var acts atomic.Int32
	mech := faults.Mechanism{Scope: faults.ScopeShared, Act: func(ctx context.Context, env faults.Env) error {
		acts.Add(1)
		return nil
	}}
	s := scenarios.Scenario{Name: "shared-test", Cluster: &scenarios.ClusterFault{Mechanism: mech}}
	f := NewShare(s, nil, 1, 7, 2)
	early, late := testMember(t, 0, "c0"), testMember(t, 1, "c1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f.exit(ctx, early)
	if err := f.join(ctx, late); err != nil {
		t.Fatal(err)
	}
	f.running(late)
	if _, err := f.drainedAndWait(late); err != nil {
		t.Fatal(err)
	}
	f.exit(ctx, late)
	if acts.Load() != 1 {
		t.Fatalf("acts %d, want 1", acts.Load())
	}
}

// TestClientLacks: a row that needs renew or poison runs on both clients,
// except on the Java worker in the implicit mode, where Kafka's consumer
// acknowledges nothing itself: N/A there, naming why.
func TestClientLacks(t *testing.T) {
	renew := scenarios.Scenario{Name: "r", Worker: &scenarios.WorkerFault{Renew: true}}
	poison := scenarios.Scenario{Name: "p", PoisonEvery: 100}
	for _, s := range []scenarios.Scenario{renew, poison} {
		for _, m := range []ctp.AckMode{ctp.Explicit, ctp.Transactional} {
			p := Plan{Scenario: s, Mode: m, Client: workerset.ClientJava}
			if m == ctp.Transactional {
				p.Realization = ctp.RealizationLedger
			}
			if why := clientLacks(p); why != "" {
				t.Errorf("%s %s on java: %s", s.Name, m, why)
			}
		}
		if why := clientLacks(Plan{Scenario: s, Mode: ctp.Implicit, Client: workerset.ClientJava}); !strings.Contains(why, "in the implicit mode") {
			t.Errorf("%s implicit on java: %q, want N/A (in the implicit mode)", s.Name, why)
		}
		for _, m := range []ctp.AckMode{ctp.Implicit, ctp.Explicit, ctp.Transactional} {
			if why := clientLacks(Plan{Scenario: s, Mode: m, Client: workerset.ClientGo}); why != "" {
				t.Errorf("%s %s on go: %s", s.Name, m, why)
			}
		}
	}
	if why := clientLacks(Plan{Scenario: scenarios.Scenario{Name: "steady"}, Client: workerset.ClientJava}); why != "" {
		t.Errorf("steady on java: %s", why)
	}
	steady := scenarios.Scenario{Name: "steady"}
	if why := clientLacks(Plan{Scenario: steady, Mode: ctp.Transactional, Realization: ctp.RealizationNative, Client: workerset.ClientJava}); !strings.Contains(why, "ledger only") {
		t.Errorf("steady native on java: %q, want N/A (the ledger only)", why)
	}
	for _, p := range []Plan{
		{Scenario: steady, Mode: ctp.Transactional, Realization: ctp.RealizationLedger, Client: workerset.ClientJava},
		{Scenario: steady, Mode: ctp.Transactional, Realization: ctp.RealizationNative, Client: workerset.ClientGo},
	} {
		if why := clientLacks(p); why != "" {
			t.Errorf("steady %s on %s: %s", p.Realization, p.Client, why)
		}
	}
}
