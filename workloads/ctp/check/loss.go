package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// checkLoss judges the inputs without a valid output: lost when the share
// group is done with them (below its start offset), and then also
// ack-without-output (how loss shows) and, when the broker archived them
// (delivery limit reached or rejected), archived; unseen when the group was
// not done with them, or it is unknown (liveness: the part is UNKNOWN).
func checkLoss(s *state) *part {
	p := newPart()
	unknownStart := make(map[int32]bool)
	for _, id := range s.ids {
		if len(s.valid[id]) > 0 {
			continue
		}
		done := true
		for _, in := range s.copiesOf(id) {
			start, known := s.obs.ShareStart[in.Partition]
			if !known {
				unknownStart[in.Partition] = true
			}
			if !known || in.Offset >= start {
				done = false
			}
		}
		if !done {
			p.counts.Unseen++
			p.report(verdict.AnomalyUnseen, id, "", func() string { return s.unseenSummary(id) })
			continue
		}
		p.counts.Lost++
		p.report(verdict.AnomalyLost, id, "", func() string { return s.lostSummary(id) })
		p.report(verdict.AnomalyAckWithoutOutput, id, "", func() string {
			return "acknowledged without a committed output: " + s.lostSummary(id)
		})
		if why := s.archivedWhy(id); why != "" {
			p.counts.Archived++
			p.report(verdict.AnomalyArchived, id, "", func() string {
				return fmt.Sprintf("archived (%s) with no committed output: %s", why, s.lostSummary(id))
			})
		}
	}
	if p.counts.Unseen > 0 {
		p.unknown = fmt.Sprintf("%d of %d input ids unseen: no committed output and the share "+
			"group was not done with them when the drain ended (liveness, not safety)",
			p.counts.Unseen, len(s.ids))
		if len(unknownStart) > 0 {
			parts := make([]int32, 0, len(unknownStart))
			for q := range unknownStart {
				parts = append(parts, q)
			}
			sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
			p.unknown += fmt.Sprintf("; share start offset unknown for input partitions %v", parts)
		}
	}
	return p
}

// archivedWhy says why the broker archived the record, "" if it did not
// (as far as the histories show).
func (s *state) archivedWhy(id string) string {
	if w, ok := s.rejected[id]; ok {
		return "rejected by " + w
	}
	if limit := s.obs.DeliveryLimit; limit > 0 && s.maxDelivery[id] >= limit {
		return fmt.Sprintf("delivered %d times, the limit is %d", s.maxDelivery[id], limit)
	}
	return ""
}

func (s *state) lostSummary(id string) string {
	in := s.inputs[id]
	return fmt.Sprintf("p%d o%d has no committed output, yet the share group is done with it "+
		"(share start offset %d); %s", in.Partition, in.Offset, s.obs.ShareStart[in.Partition], s.deliveryNote(id))
}

func (s *state) unseenSummary(id string) string {
	in := s.inputs[id]
	start, known := s.obs.ShareStart[in.Partition]
	where := fmt.Sprintf("share start offset %d", start)
	if !known {
		where = "share start offset unknown"
	}
	return fmt.Sprintf("p%d o%d has no committed output and the share group was not done with it "+
		"when the drain ended (%s); %s", in.Partition, in.Offset, where, s.deliveryNote(id))
}

func (s *state) deliveryNote(id string) string {
	if d := s.maxDelivery[id]; d > 0 {
		return fmt.Sprintf("highest delivery count polled: %d", d)
	}
	return "no history shows it polled"
}
