package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// checkAbortedReads finds the visible outputs of transactions that cannot
// have committed: their worker saw them aborted (abort ok, commit fail), or
// never invoked commit (the crash-after-send case of ORACLE.md, "output never
// visible (no aborted read)").
func checkAbortedReads(s *state) *part {
	p := newPart()
	var found []int
	for i, o := range s.obs.Outputs {
		if o.Worker == "" {
			continue
		}
		switch s.txns[txnRef{o.Worker, o.Txn}].outcome() {
		case txnAborted, txnNeverCommitted:
			found = append(found, i)
		}
	}
	outs := s.obs.Outputs
	sort.SliceStable(found, func(i, j int) bool { return outputLess(outs[found[i]], outs[found[j]]) })
	for _, i := range found {
		o := outs[i]
		p.counts.AbortedReads++
		p.report(verdict.AnomalyAbortedRead, o.Key, "", func() string { return s.abortedReadSummary(o) })
	}
	return p
}

func (s *state) abortedReadSummary(o ctp.Output) string {
	t := txnRef{o.Worker, o.Txn}
	info := s.txns[t]
	why := "its worker saw it aborted (" + info.endedBy + ")"
	if info.outcome() == txnNeverCommitted {
		why = "its worker never invoked commit, so it cannot have committed"
	}
	return fmt.Sprintf("output p%d o%d of %s is visible to read_committed, but %s",
		o.Partition, o.Offset, t, why)
}
