package check

import (
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// checkers are the sub-checkers Run composes, in report order.
var checkers = []checker{
	{"input", checkInput},
	{"loss", checkLoss},
	{"duplicates", checkDuplicates},
	{"aborted-reads", checkAbortedReads},
	{"torn-transactions", checkTornTxns},
	{"phantoms", checkPhantoms},
	{"output-content", checkOutputContent},
	{"redelivered-while-pending", checkRedeliveredWhilePending},
	{"acked-by-non-holder", checkAckedByNonHolder},
	{"redelivered-while-renewed", checkRedeliveredWhileRenewed},
	{"redelivered-after-ack", checkRedeliveredAfterAck},
	{"share-offsets-regressed", checkShareOffsetsRegressed},
	{"dead-letters", checkDLQ},
	{"fault-points", checkFaultPoints},
	{"zombie-commits", checkZombieCommits},
	{"zombie-acks", checkZombieAcks},
	{"hanging-transactions", checkHangingTransactions},
}

// Names lists the sub-checkers Run composes, in the order they run.
func Names() []string {
	names := make([]string, len(checkers))
	for i, c := range checkers {
		names[i] = c.name
	}
	return names
}

// Run judges one cell from what it observed, against what its mode allows.
// It never panics: indexing the observation is guarded like every
// sub-checker, and a panic there leaves nothing to judge by, so the whole
// cell is UNKNOWN.
func Run(obs ctp.Observation, allowed Allowed) Result {
	s, err := buildState(obs)
	if err != nil {
		return Result{Verdict: verdict.Unknown, Reason: err.Error(), Allowed: allowed.Names()}
	}
	return runCheckers(s, allowed, checkers)
}

// runCheckers runs cs on one state and merges their parts.
func runCheckers(s *state, allowed Allowed, cs []checker) Result {
	parts := make([]namedPart, len(cs))
	for i, c := range cs {
		parts[i] = namedPart{name: c.name, part: runSafe(c, s)}
	}
	return merge(s, allowed, parts)
}

// checkInput owns the input count, and makes a cell without any input
// UNKNOWN: nothing seeded is nothing judged.
func checkInput(s *state) *part {
	p := newPart()
	p.counts.Input = s.inputCount()
	if s.inputCount() == 0 {
		p.unknown = "no input record was observed: nothing to judge"
	}
	return p
}
