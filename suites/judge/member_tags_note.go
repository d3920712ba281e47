package judge

import (
	"slices"
	"strings"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// memberTagsNote names, for a native cell, whether its TxnShareAcknowledge
// carried the proposed member id and epoch, as the workers' start events
// say (what they did, not what the run asked): "" when no worker recorded
// it (other realizations, older histories).
func memberTagsNote(h history.History) string {
	var seen []string
	for _, e := range h {
		if e.F != history.FStart {
			continue
		}
		if v := e.Attrs[history.AttrMemberTags]; v != "" && !slices.Contains(seen, v) {
			seen = append(seen, v)
		}
	}
	switch {
	case len(seen) == 0:
		return ""
	case len(seen) > 1:
		slices.Sort(seen)
		return "TxnShareAcknowledge member tags: mixed (" + strings.Join(seen, ", ") + ")"
	case seen[0] == ctp.MemberTagsOmit:
		return "TxnShareAcknowledge member tags: omit (KIP-1289 as written: no member id or epoch, so the broker cannot check that the acking member holds the records)"
	}
	return "TxnShareAcknowledge member tags: " + seen[0] + " (the proposed amendment: the broker checks the acking member holds the records)"
}
