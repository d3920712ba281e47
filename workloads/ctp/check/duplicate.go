package check

import (
	"fmt"
	"strings"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// checkDuplicates owns processed and the duplicate counts (CONTRACT.md): an
// input id with two or more valid committed outputs is duplicated.
func checkDuplicates(s *state) *part {
	p := newPart()
	for _, id := range s.ids {
		outs := s.valid[id]
		if len(outs) == 0 {
			continue
		}
		p.counts.Processed++
		if len(outs) < 2 {
			continue
		}
		p.counts.Duplicated++
		p.counts.ExtraOutputs += len(outs) - 1
		p.report(verdict.AnomalyDuplicate, id, "", func() string { return s.duplicateSummary(outs) })
	}
	return p
}

func (s *state) duplicateSummary(outs []int) string {
	from := make([]string, len(outs))
	for i, idx := range outs {
		o := s.obs.Outputs[idx]
		from[i] = fmt.Sprintf("%s txn %d", o.Worker, o.Txn)
	}
	return fmt.Sprintf("%d committed outputs, from %s", len(outs), strings.Join(from, ", "))
}
