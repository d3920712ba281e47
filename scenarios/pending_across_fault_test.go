package scenarios

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestAcksPendingAcrossFault: a failover row's native cell must show a
// transaction whose acks were in it while the fault acted (from its firing
// to its heal); transactions that ended before the firing or began after
// the heal do not count; the ledger and the explicit mode are not asked.
func TestAcksPendingAcrossFault(t *testing.T) {
	row, _ := Lookup("data-leader-kill")
	native := row.EvidenceFor(ctp.Transactional, ctp.RealizationNative, Conditions{})
	if len(native) != len(row.Evidence)+1 {
		t.Fatalf("native evidence %d pieces, want the row's %d and the pending acks", len(native), len(row.Evidence))
	}
	for _, mode := range []struct {
		mode        ctp.AckMode
		realization string
	}{{ctp.Transactional, ctp.RealizationLedger}, {ctp.Explicit, ""}} {
		if got := row.EvidenceFor(mode.mode, mode.realization, Conditions{}); len(got) != len(row.Evidence) {
			t.Errorf("%s/%s asked %d pieces, want the row's %d", mode.mode, mode.realization, len(got), len(row.Evidence))
		}
	}
	txn := func(ts int64, worker string, seq int64, f string, typ history.Type) history.Event {
		e := ev(ts, worker, typ, f)
		e.Txn = seq
		return e
	}
	fired := ev(10, "orchestrator", history.Info, history.FFaultFired)
	healed := ev(20, "orchestrator", history.Info, history.FHeal)
	healed.Attrs = map[string]string{"action": "start broker 2"}
	for _, tc := range []struct {
		name string
		h    history.History
		want string // "" when it must be missing
	}{
		{"acks in before the kill, commit after", history.History{
			txn(9, "w1.1", 3, history.FTxnAcks, history.OK), fired,
			txn(12, "w1.1", 3, history.FCommit, history.OK), healed}, "w1.1 txn 3: acks in at -1s of the fault, then commit ok at +2s"},
		{"acks and abort while the broker was down", history.History{
			fired, txn(15, "w2.1", 8, history.FTxnAcks, history.OK),
			txn(16, "w2.1", 8, history.FAbort, history.Info), healed}, "w2.1 txn 8: acks in at +5s of the fault, then abort info at +6s"},
		{"never ended", history.History{
			txn(5, "w3.1", 1, history.FTxnAcks, history.OK), fired, healed}, "w3.1 txn 1: acks in at -5s of the fault, never ended"},
		{"every transaction before the firing or after the heal", history.History{
			txn(1, "w1.1", 1, history.FTxnAcks, history.OK), txn(2, "w1.1", 1, history.FCommit, history.OK), fired,
			txn(11, "w1.1", 2, history.FTxnAcks, history.Fail), healed,
			txn(21, "w1.1", 3, history.FTxnAcks, history.OK), txn(22, "w1.1", 3, history.FCommit, history.OK)}, ""},
		{"a commit's invoke is not its end", history.History{
			txn(8, "w1.1", 4, history.FTxnAcks, history.OK), txn(9, "w1.1", 4, history.FCommit, history.Invoke),
			txn(9, "w1.1", 4, history.FCommit, history.OK), fired, healed}, ""},
		{"a worker's heal is not the fault's", history.History{
			fired, ev(11, "w1.1", history.Info, history.FHeal), txn(25, "w1.1", 3, history.FTxnAcks, history.OK),
			txn(26, "w1.1", 3, history.FCommit, history.OK)}, ""},
		{"no fault", history.History{txn(9, "w1.1", 3, history.FTxnAcks, history.OK)}, ""},
	} {
		notes, missing := Show([]Evidence{acksPendingAcrossFault}, tc.h, Conditions{})
		switch {
		case tc.want == "" && missing == nil:
			t.Errorf("%s: found %v, want it missing", tc.name, notes)
		case tc.want != "" && (missing != nil || !strings.Contains(strings.Join(notes, ""), tc.want)):
			t.Errorf("%s: notes %v, missing %v, want %q", tc.name, notes, missing, tc.want)
		}
	}
}

// TestAcksPendingAtKilledLeader: data-leader-kill-after-endtxn's native
// cell must show that the held commit had acks at the killed leader (an
// input partition among the held markers'); a held commit of outputs only,
// or a firing at another point, must not do; the ledger is not asked.
func TestAcksPendingAtKilledLeader(t *testing.T) {
	row, _ := Lookup("data-leader-kill-after-endtxn")
	if got := row.EvidenceFor(ctp.Transactional, ctp.RealizationLedger, Conditions{}); len(got) != len(row.Evidence) {
		t.Errorf("the ledger asked %d pieces, want the row's %d", len(got), len(row.Evidence))
	}
	native := row.EvidenceFor(ctp.Transactional, ctp.RealizationNative, Conditions{})
	if len(native) != len(row.Evidence)+1 || native[len(native)-1].Name != acksPendingAtKilledLeader.Name {
		t.Fatalf("native evidence %d pieces, want the row's %d and the acks at the killed leader", len(native), len(row.Evidence))
	}
	firing := func(point, inputs string) history.History {
		e := ev(10, "orchestrator", history.Info, history.FFaultFired)
		e.Point = point
		e.Attrs = map[string]string{"node": "2", "transactional_id": "c-w1", faults.MarkersOfInputsAttr: inputs}
		return history.History{e}
	}
	for _, tc := range []struct {
		name string
		h    history.History
		want bool
	}{
		{"acks of an input partition held", firing(faults.PointMarkersHeldAtLeader, "c-in/1"), true},
		{"outputs only held", firing(faults.PointMarkersHeldAtLeader, ""), false},
		{"another fault's firing", firing(faults.PointAfterEndTxn, "c-in/1"), false},
		{"no firing", nil, false},
	} {
		ok, example := acksPendingAtKilledLeader.Find(tc.h, Conditions{})
		if ok != tc.want {
			t.Errorf("%s: found %v (%q), want %v", tc.name, ok, example, tc.want)
		}
		if ok && !strings.Contains(example, "c-in/1") {
			t.Errorf("%s: example %q does not name the partition", tc.name, example)
		}
	}
}
