package hunt

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

func draws(seed uint64, n int) []Trial {
	sp := Space{Menu: DefaultMenu(), MaxFaults: 3}
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []Trial
	for i := 0; i < n; i++ {
		out = append(out, sp.Draw(rng))
	}
	return out
}

// The same seed draws the same trials; another seed others.
func TestDrawIsSeeded(t *testing.T) {
	if a, b := draws(7, 50), draws(7, 50); !reflect.DeepEqual(a, b) {
		t.Fatal("seed 7 drew two different hunts")
	}
	if a, b := draws(7, 50), draws(8, 50); reflect.DeepEqual(a, b) {
		t.Fatal("seeds 7 and 8 drew the same hunt")
	}
}

// Every drawn trial is a scenario file's row the suite reads, within the
// fault budget, with arms the loop carries out, and with none of the
// rows of known upstream bugs.
func TestEveryDrawIsARunnableRow(t *testing.T) {
	for i, tr := range draws(11, 600) {
		tr.Name = "hunt/t-" + string(rune('a'+i%26))
		if _, _, err := catalogOf("t.yaml", tr); err != nil {
			t.Fatalf("draw %d (%s): %v", i, tr, err)
		}
		if tr.Faults() > 3 {
			t.Errorf("draw %d: %d faults, want at most 3", i, tr.Faults())
		}
		if w := tr.Worker; w != nil {
			if ok, _ := w.Action.ActsAt(w.Point); !ok {
				t.Errorf("draw %d: %s at %s, where the loop does not act", i, w.Action, w.Point)
			}
		}
		for _, m := range tr.Mechanisms() {
			s, _ := scenarios.Lookup(m)
			if s.KnownBug != nil {
				t.Errorf("draw %d: the known-bug row %s is on the menu", i, m)
			}
		}
	}
}

// One deck deals every arm once, before any comes again.
func TestTheDeckDealsEveryArm(t *testing.T) {
	n := len(Arms()) + noArms
	seen := map[WorkerArm]int{}
	none := 0
	for _, tr := range draws(3, n) {
		if tr.Worker == nil {
			none++
			continue
		}
		a := *tr.Worker
		a.FreshID = false
		seen[a]++
	}
	for _, a := range Arms() {
		if seen[a] != 1 {
			t.Errorf("%s@%s dealt %d times in one deck, want once", a.Action, a.Point, seen[a])
		}
	}
	if none != noArms {
		t.Errorf("%d trials without an arm, want %d", none, noArms)
	}
}

// The menu holds the catalog's cluster faults but the known bugs'.
func TestDefaultMenuLeavesTheKnownBugsOut(t *testing.T) {
	menu := DefaultMenu()
	for _, bug := range []string{"stale-share-state-write", "stale-delivery-count-write", "random-schedule", "rolling-upgrade"} {
		if slices.Contains(menu, bug) {
			t.Errorf("%s on the menu", bug)
		}
	}
	for _, want := range []string{"broker-kill", "share-state-leader-kill", "partition"} {
		if !slices.Contains(menu, want) {
			t.Errorf("%s not on the menu", want)
		}
	}
}

// An arm at after-acks makes the modes without acks in the transaction
// N/A (the point never comes there), not UNKNOWN.
func TestAfterAcksArmIsNotApplicableWithoutTxnAcks(t *testing.T) {
	tr := Trial{Name: "hunt/a-1", Shape: Shape{Records: 100, Workers: 1, Batch: 1, Partitions: 1},
		Worker: &WorkerArm{Point: ctp.PointAfterAcks, Action: ctp.ActionKill}}
	cat, _, err := catalogOf("t.yaml", tr)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := cat.Lookup(tr.Name)
	for _, m := range []ctp.AckMode{ctp.Explicit, ctp.Implicit} {
		if s.ExpectFor(m).NotApplicable == "" {
			t.Errorf("%s: not N/A", m)
		}
	}
	if s.ExpectFor(ctp.Transactional).NotApplicable != "" {
		t.Error("transactional: N/A")
	}
}
