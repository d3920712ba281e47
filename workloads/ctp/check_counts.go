package ctp

import "github.com/sharechaos/sharechaos/internal/verdict"

// counts computes the counts of CONTRACT.md "Counts in result.json" from
// what newCheckState concluded.
func (s *checkState) counts() verdict.Counts {
	c := verdict.Counts{
		Input:        len(s.ids),
		Lost:         len(s.lost),
		Archived:     len(s.archived),
		Unseen:       len(s.unseen),
		AbortedReads: len(s.abortedReads),
		TornTxns:     len(s.torn),
		Phantoms:     len(s.phantoms),
	}
	for _, outs := range s.valid {
		c.Processed++
		if len(outs) > 1 {
			c.Duplicated++
			c.ExtraOutputs += len(outs) - 1
		}
	}
	return c
}
