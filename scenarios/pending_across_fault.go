package scenarios

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
)

// acksPendingAcrossFault: a transaction's acks were in it (txn-acks ok)
// while the cluster fault acted: they went in before the heal (or the
// firing, for a fault that does not heal) and the transaction ended after
// the firing (or never: its worker died with it open). Where the broker
// settles the acks (the native realization), that is the failover the row
// exists for: a share-partition leader, share-state leader or transaction
// coordinator went away, was replaced or came back while acks were pending,
// and the broker had to keep them pending (not ACQUIRED by nobody, not
// AVAILABLE). A fault that acted while every loop was idle proved only
// that the cluster recovers, which the explicit column already shows
// (Scenario.PendingAcrossFault).
//
// Why the whole span of the fault and not its instants: a loop's acks are
// pending a few milliseconds of its hundred (docker, native: txn-acks ok to
// commit ok about 5 ms), and at the firing the workers often wait for the
// input held until the fault acts (cell/seed_held.go), so a transaction
// open at the very instant of the kill was rare (4 of 7 failover rows of a
// nightly had none); the leaders move during the span, not at its start
// (a session timeout, an election, a restart's return).
var acksPendingAcrossFault = Evidence{Name: "acks pending in a transaction while the fault acted",
	Missing: "no transaction had acks in it between the fault's firing and its heal, so the failover met no pending acks",
	Find: func(h history.History, _ Conditions) (bool, string) {
		spans := faultSpans(h)
		if len(spans) == 0 {
			return false, ""
		}
		type txn struct {
			worker string
			seq    int64
		}
		acked := map[txn]int64{} // when its acks went in
		// The example is the first transaction open across an edge of the
		// fault (its firing or heal) when there is one: the sharpest case.
		n, first, sharp := 0, "", false
		across := func(t txn, in, end int64, ended string) {
			for _, sp := range spans {
				if in > sp.healed || end < sp.fired {
					continue
				}
				n++
				edge := (in <= sp.fired && sp.fired <= end) || (in <= sp.healed && sp.healed <= end)
				if first == "" || (edge && !sharp) {
					first, sharp = fmt.Sprintf("%s txn %d: acks in at %s of the fault, %s", t.worker, t.seq, sp.offset(in), ended), edge
					if end != openEnd {
						first += " at " + sp.offset(end)
					}
				}
				return
			}
		}
		for _, e := range h {
			t := txn{e.Worker, e.Txn}
			switch {
			case e.F == history.FTxnAcks && e.Type == history.OK:
				acked[t] = e.TS
			case (e.F == history.FCommit || e.F == history.FAbort) && e.Type != history.Invoke:
				if in, ok := acked[t]; ok {
					delete(acked, t)
					across(t, in, e.TS, fmt.Sprintf("then %s %s", e.F, e.Type))
				}
			}
		}
		// Never ended: its worker died with the transaction open.
		open := slices.SortedFunc(maps.Keys(acked), func(a, b txn) int { return cmp.Compare(acked[a], acked[b]) })
		for _, t := range open {
			across(t, acked[t], openEnd, "never ended (its worker died with it open)")
		}
		if n == 0 {
			return false, ""
		}
		return true, fmt.Sprintf("%d transactions, for example %s", n, first)
	}}

// openEnd stands for the end of a transaction that never ended.
const openEnd = math.MaxInt64

// faultSpan is one firing of a cluster fault to its heal (a fault that
// does not heal: the firing alone).
type faultSpan struct{ fired, healed int64 }

// offset says when ts fell, from the firing: "-12ms", "+1.2s".
func (sp faultSpan) offset(ts int64) string {
	d := time.Duration(ts - sp.fired).Round(time.Millisecond)
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

// faultSpans pairs each firing on the orchestrator's timeline with the
// next heal (a schedule fires and heals several times).
func faultSpans(h history.History) []faultSpan {
	var spans []faultSpan
	open := -1
	for _, e := range h {
		if isWorker(e.Worker) {
			continue
		}
		switch e.F {
		case history.FFaultFired:
			spans = append(spans, faultSpan{fired: e.TS, healed: e.TS})
			open = len(spans) - 1
		case history.FHeal:
			if open >= 0 {
				spans[open].healed = e.TS
				open = -1
			}
		}
	}
	return spans
}

// acksPendingAtKilledLeader: the commit whose markers the fault held at an
// input partition's leader had acks of that leader's share-partitions in
// it, so the leader died with them pending (faults.DataLeaderKillAfterEndTxn
// names them in its firing). A held commit that only wrote outputs there
// proved a produce failover, not a pending-ack one.
var acksPendingAtKilledLeader = Evidence{Name: "acks pending at the killed leader",
	Missing: "the held commit's markers named no input partition of the killed leader, so no ack was pending there",
	Find: func(h history.History, _ Conditions) (bool, string) {
		for _, e := range h {
			if e.F == history.FFaultFired && e.Point == faults.PointMarkersHeldAtLeader && e.Attrs[faults.MarkersOfInputsAttr] != "" {
				return true, fmt.Sprintf("%s's commit, pending at broker %s on %s", e.Attrs["transactional_id"], e.Attrs["node"], e.Attrs[faults.MarkersOfInputsAttr])
			}
		}
		return false, ""
	}}
