package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// txnEv is ev inside transaction 1.
func txnEv(ts int64, worker string, typ history.Type, f string, ids ...string) history.Event {
	e := ev(ts, worker, typ, f, ids...)
	e.Txn = 1
	return e
}

// stalledWithAcks is lock-expiry-before-commit's armed worker: it polls at
// 1 s, its acks are pending from 2 s, it stalls, and its commit is answered
// at commitAt; others are the other workers' events.
func stalledWithAcks(commitAt int64, others ...history.Event) history.History {
	armedFire := fire(3, "w1.1", ctp.PointBeforeCommit, ctp.ActionStall)
	armedFire.Txn = 1
	h := history.History{
		ev(1, "w1.1", history.OK, history.FPoll, "r-1", "r-2"),
		txnEv(1, "w1.1", history.OK, history.FBegin),
		txnEv(2, "w1.1", history.OK, history.FTxnAcks, "r-1", "r-2"),
		armedFire,
	}
	h = append(h, others...)
	h = append(h, txnEv(commitAt, "w1.1", history.Invoke, history.FCommit), txnEv(commitAt, "w1.1", history.OK, history.FCommit))
	return h
}

// Under hold, lock-expiry-before-commit's evidence is the hold: must show
// for acks pending past the lock with nobody else getting the records; must
// be missing when the transaction ended within the lock, when another
// worker got the records, or when the lock is unknown. Under expire (and in
// every other realization) the row's race evidence stands.
func TestPendingLockHoldEvidence(t *testing.T) {
	row, _ := Lookup("lock-expiry-before-commit")
	hold := Conditions{PendingLock: PendingLockHold, Lock: 15 * time.Second}
	native := row.EvidenceFor(ctp.Transactional, ctp.RealizationNative, hold)

	notes, missing := Show(native, stalledWithAcks(18), hold)
	if missing != nil {
		t.Fatalf("held past the lock: missing %q (%s)", missing.Name, missing.Missing)
	}
	if got := strings.Join(notes, "\n"); !strings.Contains(got, "the lock (15s) ran out by +15s; its transaction ended (commit ok) at +17s") {
		t.Errorf("notes %q do not say when the lock ran out and the transaction ended", got)
	}
	for _, tc := range []struct {
		name    string
		h       history.History
		c       Conditions
		missing string
	}{
		{"ended-within-the-lock", stalledWithAcks(10), hold, "the hold was not tested"},
		{"lock-unknown", stalledWithAcks(18), Conditions{PendingLock: PendingLockHold}, "the hold was not tested"},
		{"another-worker-got-them", stalledWithAcks(18, ev(16, "w2.1", history.OK, history.FPoll, "r-2")), hold, "the broker did not hold them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := row.EvidenceFor(ctp.Transactional, ctp.RealizationNative, tc.c)
			if _, missing := Show(ev, tc.h, tc.c); missing == nil || !strings.Contains(missing.Missing, tc.missing) {
				t.Errorf("missing %+v, want %q", missing, tc.missing)
			}
		})
	}

	// The race evidence where the policy does not apply or is expire.
	race := stalledWithAcks(18, ev(16, "w2.1", history.OK, history.FPoll, "r-2"))
	for _, tc := range []struct {
		mode        ctp.AckMode
		realization string
		c           Conditions
	}{
		{ctp.Transactional, ctp.RealizationNative, Conditions{PendingLock: PendingLockExpire, Lock: 15 * time.Second}},
		{ctp.Transactional, ctp.RealizationNative, Conditions{}},
		{ctp.Explicit, "", hold},
	} {
		ev := row.EvidenceFor(tc.mode, tc.realization, tc.c)
		if _, missing := Show(ev, race, tc.c); missing != nil {
			t.Errorf("%s/%s %+v: the race shows, yet missing %q", tc.mode, tc.realization, tc.c, missing.Name)
		}
		if _, missing := Show(ev, stalledWithAcks(18), tc.c); missing == nil || !strings.Contains(missing.Missing, "the race did not happen") {
			t.Errorf("%s/%s %+v: no race, missing %+v, want the race did not happen", tc.mode, tc.realization, tc.c, missing)
		}
	}
}
