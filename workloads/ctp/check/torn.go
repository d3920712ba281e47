package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// tornTxn is a transaction with only part of its output visible.
type tornTxn struct {
	txn     txnRef
	sent    int
	visible int
	missing []string // sorted
}

// checkTornTxns finds transactions with some but not all of their outputs
// visible. A transaction's outputs are the ids its send events list plus any
// visible output naming it. A commit of unknown outcome may show all or
// nothing, never part; so may every other outcome (an aborted transaction
// with part visible is both an aborted read and torn).
func checkTornTxns(s *state) *part {
	var torn []tornTxn
	for t, info := range s.txns {
		keys := s.visible[t]
		if len(keys) == 0 || len(info.sent) == 0 {
			continue
		}
		var missing []string
		for id := range info.sent {
			if _, ok := keys[id]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			continue
		}
		sort.Strings(missing)
		torn = append(torn, tornTxn{txn: t, sent: len(missing) + len(keys), visible: len(keys), missing: missing})
	}
	sort.Slice(torn, func(i, j int) bool {
		a, b := torn[i], torn[j]
		if a.missing[0] != b.missing[0] {
			return a.missing[0] < b.missing[0]
		}
		if a.txn.worker != b.txn.worker {
			return a.txn.worker < b.txn.worker
		}
		return a.txn.seq < b.txn.seq
	})
	p := newPart()
	for _, t := range torn {
		p.counts.TornTxns++
		p.report(verdict.AnomalyTornTransaction, t.missing[0], "", func() string {
			return fmt.Sprintf("%s produced %d outputs but only %d are visible; missing: %s",
				t.txn, t.sent, t.visible, listIDs(t.missing))
		})
	}
	return p
}
