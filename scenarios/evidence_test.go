package scenarios

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// ev builds one event at ts (seconds) for the evidence tests.
func ev(ts int64, worker string, typ history.Type, f string, ids ...string) history.Event {
	e := history.Event{TS: ts * 1e9, Worker: worker, Type: typ, F: f}
	for _, id := range ids {
		e.Records = append(e.Records, history.Rec{ID: id, Delivery: 1})
	}
	return e
}

func fire(ts int64, worker string, p ctp.Point, a ctp.Action) history.Event {
	e := ev(ts, worker, history.Info, history.FFaultFired)
	e.Point, e.Attrs = string(p), map[string]string{"action": string(a)}
	return e
}

func withErr(e history.Event, err string) history.Event { e.Error = err; return e }

func TestZombieEvidence(t *testing.T) {
	row, _ := Lookup("zombie-fenced")
	base := history.History{
		ev(1, "w1.1", history.OK, history.FPoll, "r-1"),
		fire(2, "w1.1", ctp.PointBeforeCommit, ctp.ActionStop),
		ev(3, "orchestrator", history.Info, history.FZombieStopped),
		ev(4, "w1.2", history.OK, history.FInitProducer),
		ev(5, "w1.1", history.Info, history.FResumed),
		ev(6, "w1.1", history.Invoke, history.FCommit, "r-1"),
	}
	cases := []struct {
		name    string
		h       history.History
		missing string // "" when every piece is shown
	}{
		{"fenced as Kafka says", append(clone(base), withErr(ev(7, "w1.1", history.Info, history.FCommit, "r-1"), "PRODUCER_FENCED: newer producer")), ""},
		{"refused as kfake says", append(clone(base), withErr(ev(7, "w1.1", history.Fail, history.FCommit, "r-1"), "INVALID_TXN_STATE: bad state")), ""},
		{"never tried to commit", clone(base)[:5], "never tried to commit"},
		{"committed", append(clone(base), ev(7, "w1.1", history.OK, history.FCommit, "r-1")), "never tried to commit"},
		{"resumed before the replacement initialized", history.History{base[0], base[1], base[2], ev(4, "w1.1", history.Info, history.FResumed),
			ev(5, "w1.2", history.OK, history.FInitProducer), ev(6, "w1.1", history.Invoke, history.FCommit),
			withErr(ev(7, "w1.1", history.Info, history.FCommit), "PRODUCER_FENCED")}, "did not complete between"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			notes, missing := Show(row.Evidence, c.h, Conditions{})
			switch {
			case c.missing == "" && missing != nil:
				t.Fatalf("missing %q, want every piece shown", missing.Name)
			case c.missing != "" && (missing == nil || !strings.Contains(missing.Missing, c.missing)):
				t.Fatalf("missing %+v, want one saying %q", missing, c.missing)
			case c.missing == "" && len(notes) != len(row.Evidence):
				t.Fatalf("notes %v, want one per piece", notes)
			}
		})
	}
}

func TestSecondAcquisitionEvidence(t *testing.T) {
	row, _ := Lookup("lock-expiry-race")
	held := history.History{
		ev(1, "w1.1", history.OK, history.FPoll, "r-1", "r-2"),
		fire(2, "w1.1", ctp.PointBeforeBegin, ctp.ActionStall),
	}
	race := append(clone(held),
		ev(17, "w2.1", history.OK, history.FPoll, "r-2"),
		ev(20, "w1.1", history.OK, history.FBegin),
		ev(21, "w1.1", history.OK, history.FAbort))
	if _, missing := Show(row.Evidence, race, Conditions{}); missing != nil {
		t.Fatalf("race: missing %q", missing.Name)
	}
	late := append(clone(held),
		ev(20, "w1.1", history.OK, history.FBegin),
		ev(21, "w1.1", history.OK, history.FCommit),
		ev(22, "w2.1", history.OK, history.FPoll, "r-2"))
	if _, missing := Show(row.Evidence, late, Conditions{}); missing == nil || !strings.Contains(missing.Missing, "the race did not happen") {
		t.Fatalf("acquired after the commit: missing %+v, want the race did not happen", missing)
	}
	self := append(clone(held), ev(20, "w1.1", history.OK, history.FBegin), ev(21, "w1.1", history.OK, history.FCommit),
		ev(22, "w1.1", history.OK, history.FPoll, "r-2"))
	if _, missing := Show(row.Evidence, self, Conditions{}); missing == nil {
		t.Fatal("only the armed worker itself got the records again: want the race missing")
	}
}

func TestEveryFaultRowHasEvidence(t *testing.T) {
	for _, s := range All() {
		if s.HasFault() && len(s.Evidence) == 0 {
			t.Errorf("%s injects a fault but says nothing its history must show", s.Name)
		}
	}
}

func clone(h history.History) history.History { return append(history.History(nil), h...) }

// lock-expiry-stale-acks needs the re-acquiring worker to hold the records
// across the armed worker's acks; its follower's own firing is not the
// armed worker's.
func TestHeldAcrossAcksEvidence(t *testing.T) {
	row, _ := Lookup("lock-expiry-stale-acks")
	held := history.History{
		ev(1, "w1.1", history.OK, history.FPoll, "r-1", "r-2"),
		fire(2, "w1.1", ctp.PointBeforeBegin, ctp.ActionStallOverlap),
		ev(17, "w2.1", history.OK, history.FPoll, "r-2"),
		fire(17, "w2.1", ctp.PointBeforeBegin, ctp.ActionHoldRedelivered),
		ev(20, "w1.1", history.OK, history.FBegin),
		ev(21, "w1.1", history.Invoke, history.FTxnAcks, "r-1", "r-2"),
	}
	overlap := append(clone(held),
		ev(21, "w1.1", history.Fail, history.FTxnAcks),
		ev(22, "w1.1", history.OK, history.FAbort),
		ev(26, "w2.1", history.OK, history.FBegin))
	notes, missing := Show(row.Evidence, overlap, Conditions{})
	if missing != nil {
		t.Fatalf("overlap: missing %q", missing.Name)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "fired at before-begin: w1.1") {
		t.Errorf("notes %v: want the armed worker w1.1, not its follower", notes)
	}
	// The re-acquirer processed the records before the acks went out: no
	// overlap (lock-expiry-race's shape).
	quick := history.History{held[0], held[1], held[2],
		ev(18, "w2.1", history.OK, history.FBegin), ev(19, "w2.1", history.OK, history.FCommit),
		held[4], held[5], ev(21, "w1.1", history.Fail, history.FTxnAcks), ev(22, "w1.1", history.OK, history.FAbort)}
	if _, missing := Show(row.Evidence, quick, Conditions{}); missing == nil || !strings.Contains(missing.Missing, "the overlap did not happen") {
		t.Fatalf("processed before the acks: missing %+v, want the overlap did not happen", missing)
	}
}

// Implicit: the acks ride on the fetch after the commit, which an empty
// fetch leaves unrecorded: the commit's outcome stands for it.
func TestHeldAcrossAcksEvidenceImplicit(t *testing.T) {
	row, _ := Lookup("lock-expiry-stale-acks")
	h := history.History{
		ev(1, "w1.1", history.OK, history.FPoll, "r-1"),
		fire(2, "w1.1", ctp.PointBeforeBegin, ctp.ActionStallOverlap),
		ev(17, "w2.1", history.OK, history.FPoll, "r-1"),
		fire(17, "w2.1", ctp.PointBeforeBegin, ctp.ActionHoldRedelivered),
		ev(20, "w1.1", history.OK, history.FBegin),
		ev(21, "w1.1", history.Invoke, history.FCommit, "r-1"),
		ev(21, "w1.1", history.OK, history.FCommit, "r-1"),
		ev(26, "w2.1", history.OK, history.FBegin),
	}
	if _, missing := Show(row.Evidence, h, Conditions{}); missing != nil {
		t.Fatalf("missing %q", missing.Name)
	}
}

// TestAcksSpannedEvidence: a native cell of a row that needs transactions
// spanning share-partitions must show one when its shape allows it; the
// ledger, a shape where no worker is bound to hold two partitions or a poll
// holds one record, and rows that do not need it are not asked.
func TestAcksSpannedEvidence(t *testing.T) {
	steady, _ := Lookup("steady")
	shape := Shape{Workers: 3, Partitions: 4, Batch: 10, Brokers: 3}
	acks := func(parts ...int32) history.Event {
		e := ev(1, "w1.1", history.OK, history.FTxnAcks)
		for _, p := range parts {
			e.Records = append(e.Records, history.Rec{ID: "r", Partition: p, Delivery: 1})
		}
		return e
	}
	native := func(c Conditions) []Evidence { return steady.EvidenceFor(ctp.Transactional, ctp.RealizationNative, c) }
	if ev := native(Conditions{Shape: shape}); len(ev) != 1 {
		t.Fatalf("steady, native, 4 partitions on 3 brokers: evidence %v, want the spanning transaction", ev)
	}
	if _, missing := Show(native(Conditions{Shape: shape}), history.History{acks(0, 0), acks(1)}, Conditions{}); missing == nil {
		t.Error("single-partition transactions accepted as spanning")
	}
	notes, missing := Show(native(Conditions{Shape: shape}), history.History{acks(0), acks(2, 3)}, Conditions{})
	if missing != nil || !strings.Contains(strings.Join(notes, ""), "1 transactions, the first w1.1 txn 0 (2 partitions)") {
		t.Errorf("a spanning transaction not found: notes %v, missing %v", notes, missing)
	}
	if ev := native(Conditions{Shape: Shape{Workers: 1, Partitions: 2, Batch: 2, Brokers: 1}}); len(ev) != 2 || ev[0].Name != acksSpanned.Name {
		t.Errorf("one broker leading two partitions of one worker: evidence %v, want the spanning transaction and the shared request", ev)
	}
	for _, c := range []Conditions{{Shape: Shape{Workers: 1, Partitions: 1, Batch: 10, Brokers: 3}}, {Shape: Shape{Workers: 4, Partitions: 4, Batch: 10, Brokers: 3}}, {Shape: Shape{Workers: 1, Partitions: 4, Batch: 1, Brokers: 3}}, {}} {
		if ev := native(c); len(ev) != 0 {
			t.Errorf("shape %+v: evidence %v, want none (it cannot span)", c.Shape, ev)
		}
	}
	if ev := steady.EvidenceFor(ctp.Transactional, ctp.RealizationLedger, Conditions{Shape: shape}); len(ev) != 0 {
		t.Errorf("ledger: evidence %v, want none", ev)
	}
}

// TestAcksSharedARequestEvidence: a native cell of a row that needs one
// TxnShareAcknowledge carrying several share-partitions must show one where
// some worker is bound to hold more partitions than there are brokers; a
// request per share-partition (a transaction spanning leaders) is not one,
// and a shape that cannot share a request is not asked.
func TestAcksSharedARequestEvidence(t *testing.T) {
	row, _ := Lookup("acks-of-one-broker-in-one-request")
	bound := Shape{Workers: 1, Partitions: 8, Batch: 10, Brokers: 3}
	native := func(c Conditions) []Evidence { return row.EvidenceFor(ctp.Transactional, ctp.RealizationNative, c) }
	acks := func(requests string) history.Event {
		e := ev(1, "w1.1", history.OK, history.FTxnAcks)
		e.Records = []history.Rec{{ID: "r-1", Partition: 0, Delivery: 1}, {ID: "r-2", Partition: 1, Delivery: 1}}
		e.Attrs = map[string]string{ctp.AttrAckRequests: requests}
		return e
	}
	ev := native(Conditions{Shape: bound})
	if len(ev) != 2 || ev[1].Name != acksSharedARequest.Name {
		t.Fatalf("8 partitions, 1 worker, 3 brokers: evidence %v, want the spanning transaction and the shared request", ev)
	}
	if _, missing := Show(ev, history.History{acks("1:0;2:1"), acks("3:2")}, Conditions{}); missing == nil || missing.Name != acksSharedARequest.Name {
		t.Errorf("requests of one share-partition each accepted as shared: missing %v", missing)
	}
	notes, missing := Show(ev, history.History{acks("1:0;2:1"), acks("1:0,3;2:1")}, Conditions{})
	if missing != nil || !strings.Contains(strings.Join(notes, ""), "1 transactions, the first w1.1 txn 0 (broker 1, partitions [0 3])") {
		t.Errorf("a shared request not found: notes %v, missing %v", notes, missing)
	}
	for _, sh := range []Shape{{Workers: 3, Partitions: 4, Batch: 10, Brokers: 3}, {Workers: 1, Partitions: 3, Batch: 10, Brokers: 3}, {Workers: 1, Partitions: 8, Batch: 1, Brokers: 3}} {
		for _, e := range native(Conditions{Shape: sh}) {
			if e.Name == acksSharedARequest.Name {
				t.Errorf("shape %+v asks for a shared request it cannot be bound to show", sh)
			}
		}
	}
	if got := ctp.FormatAckRequests(ctp.ParseAckRequests("1:0,3;2:1")); got != "1:0,3;2:1" {
		t.Errorf("ack requests round trip: %q", got)
	}
}

// graceful-stop-mid-txn: the stopped worker's own transaction must abort
// before its stop event; a commit, another transaction's abort, or no stop
// event is not the graceful stop path.
func TestAbortedOnStopEvidence(t *testing.T) {
	row, _ := Lookup("graceful-stop-mid-txn")
	txn := func(e history.Event, seq int64) history.Event { e.Txn = seq; return e }
	fired := fire(3, "w1.1", ctp.PointAfterSend, ctp.ActionTerm)
	fired.Txn = 2
	base := history.History{
		ev(1, "w1.1", history.OK, history.FPoll, "r-1"),
		txn(ev(2, "w1.1", history.OK, history.FSend), 2),
		fired,
	}
	redelivery := ev(9, "w1.2", history.OK, history.FPoll, "r-1")
	cases := []struct {
		name    string
		h       history.History
		missing string // "" when every piece is shown
	}{
		{"aborted, then stopped", append(clone(base), txn(ev(4, "w1.1", history.OK, history.FAbort), 2),
			ev(5, "w1.1", history.Info, history.FStop), redelivery), ""},
		{"committed instead", append(clone(base), txn(ev(4, "w1.1", history.OK, history.FCommit), 2),
			ev(5, "w1.1", history.Info, history.FStop), redelivery), "did not abort"},
		{"another transaction aborted", append(clone(base), txn(ev(4, "w1.1", history.OK, history.FAbort), 1),
			ev(5, "w1.1", history.Info, history.FStop), redelivery), "did not abort"},
		{"another worker aborted", append(clone(base), txn(ev(4, "w2.1", history.OK, history.FAbort), 2),
			ev(5, "w1.1", history.Info, history.FStop), redelivery), "did not abort"},
		{"aborted, never stopped", append(clone(base), txn(ev(4, "w1.1", history.OK, history.FAbort), 2), redelivery), "did not abort"},
		{"stopped, never redelivered", append(clone(base), txn(ev(4, "w1.1", history.OK, history.FAbort), 2),
			ev(5, "w1.1", history.Info, history.FStop)), "delivered again"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, missing := Show(row.Evidence, c.h, Conditions{})
			switch {
			case c.missing == "" && missing != nil:
				t.Fatalf("missing %q, want every piece shown", missing.Name)
			case c.missing != "" && (missing == nil || !strings.Contains(missing.Missing, c.missing)):
				t.Fatalf("missing %+v, want one saying %q", missing, c.missing)
			}
		})
	}
}
