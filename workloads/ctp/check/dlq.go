package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// checkDLQ judges a cell whose workers had poison records (ctp.Poison) and
// whose group had a dead-letter topic (KIP-1191). The poison records are
// meant to be lost into the dead-letter queue, so such a row allows loss;
// this part makes that allowance exact: a lost input that is not poison is
// lost-not-poison, and every input the broker archived (the histories show
// its delivery-count limit reached, or a REJECT) must be in the
// dead-letter topic exactly once, nothing missing (dlq-missing), nothing
// else there (dlq-extra), nothing twice (dlq-duplicate). A dead letter is
// matched to its input by the partition and offset its headers name, on
// the cell's input topic, and its copied key must be the input's id.
func checkDLQ(s *state) *part {
	p := newPart()
	if s.obs.Poison != nil {
		for _, id := range s.ids {
			if len(s.valid[id]) == 0 && s.doneWith(id) && !s.obs.Poison.Is(id) {
				p.report(verdict.AnomalyLostNotPoison, id, "", func() string {
					return "not a poison record, yet lost: " + s.lostSummary(id)
				})
			}
		}
	}
	if s.obs.DLQTopic == "" {
		return p
	}
	type at struct {
		partition int32
		offset    int64
	}
	idAt := map[at]string{}
	for _, id := range s.ids {
		for _, in := range s.copiesOf(id) {
			idAt[at{in.Partition, in.Offset}] = id
		}
	}
	letters := map[string][]ctp.DLQRecord{}
	for _, d := range s.obs.DLQ {
		id, ok := idAt[at{d.Partition, d.Offset}]
		if !ok || d.Topic != s.obs.InputTopic || (d.Key != "" && d.Key != id) {
			name := fmt.Sprintf("dlq@%d", d.At)
			p.report(verdict.AnomalyDLQExtra, name, "", func() string {
				return fmt.Sprintf("dead letter at %d names %s/%d offset %d (key %q): no input of this cell", d.At, d.Topic, d.Partition, d.Offset, d.Key)
			})
			continue
		}
		letters[id] = append(letters[id], d)
	}
	ids := make([]string, 0, len(letters))
	for id := range letters {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		ds := letters[id]
		if s.archivedWhy(id) == "" {
			p.report(verdict.AnomalyDLQExtra, id, "", func() string {
				return fmt.Sprintf("in the dead-letter topic (at %d, %s), yet the histories show it was never archived: %s", ds[0].At, ds[0].Message, s.deliveryNote(id))
			})
		}
		if len(ds) > 1 {
			p.report(verdict.AnomalyDLQDuplicate, id, "", func() string {
				return fmt.Sprintf("in the dead-letter topic %d times (at %d and %d)", len(ds), ds[0].At, ds[1].At)
			})
		}
	}
	for _, id := range s.ids {
		if why := s.archivedWhy(id); why != "" && len(letters[id]) == 0 {
			p.report(verdict.AnomalyDLQMissing, id, "", func() string {
				return fmt.Sprintf("archived (%s) but not in the dead-letter topic %s", why, s.obs.DLQTopic)
			})
		}
	}
	return p
}

// doneWith reports whether the share group is done with every copy of id.
func (s *state) doneWith(id string) bool {
	for _, in := range s.copiesOf(id) {
		start, known := s.obs.ShareStart[in.Partition]
		if !known || in.Offset >= start {
			return false
		}
	}
	return true
}
