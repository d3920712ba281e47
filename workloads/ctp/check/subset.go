package check

import (
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Whole is what a caller that judges a part of a cell knows about the whole
// cell: how many input ids it has and how many of them were processed.
type Whole struct {
	Inputs, Processed int
}

// RunSubset judges a sub-observation of a cell: every input, output and
// history event that bears on any record or transaction that is not plain
// (the large-run path, workloads/ctp/check/large, selects them), judged by
// the same sub-checkers as Run. The plain records left out (one poll, one
// valid output of a committed transaction) count only as input and
// processed: whole.Inputs is the whole cell's input count, whole.Processed
// the plain records left out (each processed once).
func RunSubset(obs ctp.Observation, allowed Allowed, whole Whole) Result {
	s, err := buildState(obs)
	if err != nil {
		return Result{Verdict: verdict.Unknown, Reason: err.Error(), Allowed: allowed.Names()}
	}
	s.whole = &whole
	res := runCheckers(s, allowed, checkers)
	res.Counts.Input = whole.Inputs
	res.Counts.Processed += whole.Processed
	return res
}

// inputCount is the number of input ids of the whole cell.
func (s *state) inputCount() int {
	if s.whole != nil {
		return s.whole.Inputs
	}
	return len(s.ids)
}
