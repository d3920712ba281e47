package scenarios

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// acksPendingAcrossFault: a transaction's acks were in it (txn-acks ok) when
// the cluster fault fired or healed, and the transaction ended after that
// (or never: its worker died with it open). Where the broker settles the
// acks (the native realization), such a transaction is the failover the row
// exists for: the share-partition's leader, the share state's leader or the
// transaction coordinator went away or came back while acks were pending,
// and the new one had to find them pending (not ACQUIRED by nobody, not
// AVAILABLE). A fault whose every edge fell between transactions proved
// only that the cluster recovers, which the explicit column already shows
// (Scenario.PendingAcrossFault).
var acksPendingAcrossFault = Evidence{Name: "acks pending in a transaction across the fault",
	Missing: "no transaction had acks in it when the fault fired or healed, so the failover met no pending acks",
	Find: func(h history.History, _ Conditions) (bool, string) {
		var edges []history.Event
		for _, e := range h {
			if !isWorker(e.Worker) && (e.F == history.FFaultFired || e.F == history.FHeal) {
				edges = append(edges, e)
			}
		}
		if len(edges) == 0 {
			return false, ""
		}
		type txn struct {
			worker string
			seq    int64
		}
		acked := map[txn]int64{} // when its acks went in
		n, first := 0, ""
		across := func(t txn, in, end int64, ended string) {
			for _, edge := range edges {
				if in > edge.TS || edge.TS > end {
					continue
				}
				if n == 0 {
					first = fmt.Sprintf("%s txn %d: acks in %s before %s, %s", t.worker, t.seq,
						time.Duration(edge.TS-in).Round(time.Millisecond), edgeName(edge), ended)
					if end != openEnd {
						first += " " + time.Duration(end-edge.TS).Round(time.Millisecond).String() + " after it"
					}
				}
				n++
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
		return true, fmt.Sprintf("%d transactions, the first %s", n, first)
	}}

// openEnd stands for the end of a transaction that never ended.
const openEnd = math.MaxInt64

// edgeName says which edge of the fault an event is.
func edgeName(e history.Event) string {
	if e.F == history.FHeal {
		return fmt.Sprintf("the heal (%s)", e.Attrs["action"])
	}
	if e.Point != "" {
		return "the fault fired at " + e.Point
	}
	return "the fault fired"
}
