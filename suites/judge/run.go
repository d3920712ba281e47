package judge

import (
	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
)

// Run sets the run verdict from its cells and thresholds, the same for a
// live run and a re-check: the worst cell; UNKNOWN for an interrupted run
// that would otherwise pass; THRESHOLD-FAILED when a threshold failed, unless
// the verdict is already worse (CONTRACT.md).
func Run(res result.Result) result.Result {
	vs := make([]verdict.Verdict, len(res.Runs))
	for i, c := range res.Runs {
		vs[i] = c.Verdict
	}
	res.Verdict = verdict.Worst(vs...)
	if res.Interrupted && res.Verdict == verdict.Pass {
		res.Verdict = verdict.Unknown
	}
	if !bench.AllPass(res.Thresholds) {
		res.Verdict = verdict.Worst(res.Verdict, verdict.ThresholdFailed)
	}
	res.ExitCode = res.Verdict.ExitCode()
	return res
}
