package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
)

// checkZombieCommits finds commits a zombie got through: a worker
// incarnation that invoked a commit after the next incarnation of its slot
// started, and saw it ok. The replacement's InitProducerId (same
// transactional id) fences the old producer, so the resumed zombie's commit
// must fail fenced (ORACLE.md case 5); one that commits is an anomaly in
// every mode, whatever its records' counts show. A commit invoked before the
// replacement started may legitimately complete (the coordinator finishes
// an EndTxn it already has), so only later invokes are judged.
func checkZombieCommits(s *state) *part {
	p := newPart()
	startOf := make(map[string]int64) // worker incarnation -> its start event
	for _, e := range s.obs.History {
		if e.F == history.FStart {
			if _, seen := startOf[e.Worker]; !seen {
				startOf[e.Worker] = e.TS
			}
		}
	}
	type zombieCommit struct {
		txn         txnRef
		replacement string
		replacedAt  int64
		record      string
	}
	var found []zombieCommit
	for t, info := range s.txns {
		if !info.sawCommitOK || info.commitAt == 0 {
			continue
		}
		next := nextIncarnation(t.worker)
		at, started := startOf[next]
		if next == "" || !started || info.commitAt <= at {
			continue
		}
		z := zombieCommit{txn: t, replacement: next, replacedAt: at}
		for id := range info.acked {
			if z.record == "" || id < z.record {
				z.record = id
			}
		}
		for id := range info.sent {
			if z.record == "" || id < z.record {
				z.record = id
			}
		}
		found = append(found, z)
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].record != found[j].record {
			return found[i].record < found[j].record
		}
		return found[i].txn.String() < found[j].txn.String()
	})
	for _, z := range found {
		info := s.txns[z.txn]
		p.report(verdict.AnomalyZombieCommit, z.record, "", func() string {
			return fmt.Sprintf("%s invoked its commit at %s, after its replacement %s started at %s, and it committed: "+
				"the replacement should have fenced it", z.txn, s.at(info.commitAt), z.replacement, s.at(z.replacedAt))
		})
	}
	return p
}

// nextIncarnation returns the name of the incarnation after worker ("w2.1"
// -> "w2.2"), "" for a name that is no worker incarnation.
func nextIncarnation(worker string) string {
	var slot, inc int
	if n, err := fmt.Sscanf(worker, "w%d.%d", &slot, &inc); n != 2 || err != nil {
		return ""
	}
	if fmt.Sprintf("w%d.%d", slot, inc) != worker {
		return ""
	}
	return fmt.Sprintf("w%d.%d", slot, inc+1)
}
