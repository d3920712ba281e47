package judge

import (
	"slices"

	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// shareStartUnknownNote is a re-checked cell's note when its observation
// predates keeping Kafka's own start offsets: what it calls share_start is
// what the drain read, which a rule may have moved.
const shareStartUnknownNote = "the share start offsets Kafka reported are unknown: this observation.json predates keeping them " +
	"(share_start_reported); its share_start is the drain's, which is Kafka's or, where the partition's lag was 0, its end offset (" +
	ctp.RuleLagZeroIsDone + ", docs/FINDINGS.md 4)"

// noteShareStart fills the cell's share_start_adjusted from obs: every
// input partition whose start offset the drain judged by is not the one
// Kafka reported. An observation without the reported ones gets a note
// instead; that is no failure, the judgement used the same offsets then.
func noteShareStart(cell *result.Cell, obs ctp.Observation) {
	cell.ShareStartAdjusted = nil
	if obs.ShareStartReported == nil {
		if obs.ShareStart != nil && !slices.Contains(cell.Notes, shareStartUnknownNote) {
			cell.Notes = append(cell.Notes, shareStartUnknownNote)
		}
		return
	}
	for p, judged := range obs.ShareStart {
		reported, ok := obs.ShareStartReported[p]
		if !ok || reported == judged {
			continue
		}
		cell.ShareStartAdjusted = append(cell.ShareStartAdjusted, result.ShareStartAdjusted{
			Partition: p, Reported: reported, Judged: judged, Rule: obs.ShareStartRule[p]})
	}
	slices.SortFunc(cell.ShareStartAdjusted, func(a, b result.ShareStartAdjusted) int { return int(a.Partition - b.Partition) })
}
