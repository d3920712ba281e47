package check

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
)

// checkZombieAcks finds acks a zombie got into a transaction: a worker
// incarnation that invoked txn-acks after the next incarnation of its slot
// started, and saw them ok. By then the replacement's InitProducerId has
// bumped the producer epoch (or is about to: the replacement's start comes
// before its init, and the zombie is frozen until that init is done), so the
// acks carry a fenced epoch and must be refused (zombie-fenced-before-acks).
// A broker that forgets the epoch check on AddShareAcksToTxn or
// TxnShareAcknowledge lets them through; what they then do to the records
// depends on the broker, so the acceptance itself is the anomaly.
func checkZombieAcks(s *state) *part {
	p := newPart()
	startOf := make(map[string]int64)
	for _, e := range s.obs.History {
		if e.F == history.FStart {
			if _, seen := startOf[e.Worker]; !seen {
				startOf[e.Worker] = e.TS
			}
		}
	}
	invokedAt := make(map[txnRef]int64)
	for _, e := range s.obs.History {
		if e.F != history.FTxnAcks {
			continue
		}
		t := txnRef{worker: e.Worker, seq: e.Txn}
		if e.Type == history.Invoke {
			invokedAt[t] = e.TS
			continue
		}
		at, invoked := invokedAt[t]
		next := nextIncarnation(e.Worker)
		replacedAt, replaced := startOf[next]
		if e.Type != history.OK || !invoked || next == "" || !replaced || at <= replacedAt {
			continue
		}
		record := ""
		for _, r := range e.Records {
			if record == "" || r.ID < record {
				record = r.ID
			}
		}
		p.report(verdict.AnomalyZombieAcks, record, "", func() string {
			return fmt.Sprintf("%s sent its acks into its transaction at %s, after its replacement %s started at %s, "+
				"and they were accepted: the replacement's epoch should have fenced them", t, s.at(at), next, s.at(replacedAt))
		})
	}
	return p
}
