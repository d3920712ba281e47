package check

import (
	"fmt"
	"sort"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// checkPhantoms reports the outputs whose key is no input id (CONTRACT.md's
// phantoms).
func checkPhantoms(s *state) *part { return s.reportInvalid(outputNoInput) }

// checkOutputContent reports the outputs whose key is an input id but that
// are not its processing: the value is not transform(input), or the src
// header does not name where the input was seeded (or names another topic).
// They are phantoms too (no input's processing; CONTRACT.md counts them
// there), found by a check of their own because they fail for another reason:
// a corrupted or misattributed output rather than an invented one.
func checkOutputContent(s *state) *part { return s.reportInvalid(outputBadContent) }

// reportInvalid reports the invalid outputs of one kind as phantom-output,
// ordered by key, then where the output sits.
func (s *state) reportInvalid(kind outputFault) *part {
	var mine []invalidOutput
	for _, in := range s.invalid {
		if in.fault == kind {
			mine = append(mine, in)
		}
	}
	outs := s.obs.Outputs
	sort.SliceStable(mine, func(i, j int) bool { return outputLess(outs[mine[i].output], outs[mine[j].output]) })
	p := newPart()
	for _, in := range mine {
		o := outs[in.output]
		p.counts.Phantoms++
		p.report(verdict.AnomalyPhantomOutput, o.Key, "", func() string {
			return fmt.Sprintf("output p%d o%d with key %q belongs to no input: %s", o.Partition, o.Offset, o.Key, in.why)
		})
	}
	return p
}
