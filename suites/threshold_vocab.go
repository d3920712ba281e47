package suites

import (
	"github.com/sharechaos/sharechaos/suites/judge"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// thresholdVocabulary is what a chaos run's thresholds may name: the cell
// metrics (cellLatency), the cell counters, and the tags evaluateThresholds
// gives each cell, with this run's values (its scenarios and modes, the
// registered backends, the realizations).
func (o Options) thresholdVocabulary() (bench.Vocabulary, error) {
	scen, err := o.scenarios()
	if err != nil {
		return bench.Vocabulary{}, err
	}
	var names, modes []string
	for _, s := range scen {
		names = append(names, s.Name)
	}
	for _, m := range o.Modes {
		modes = append(modes, string(m))
	}
	return bench.Vocabulary{
		Latencies: bench.MetricNames(bench.Latency, bench.InRun),
		Counters:  judge.ThresholdCounters(),
		Tags: map[string][]string{
			"scenario":    names,
			"mode":        modes,
			"backend":     harness.BackendChoices()[1:], // a cell ran on a backend, never on auto
			"realization": kip1289.RealizationNames(),
		},
	}, nil
}

// checkThresholds refuses, before anything runs, a threshold that names a
// metric, tag or tag value this run does not have: it would otherwise match
// nothing and be ignored, or fail every cell after the whole matrix ran.
func (o Options) checkThresholds() error {
	ts, err := bench.ParseThresholds(o.Thresholds)
	if err != nil {
		return harness.Usagef("--threshold: %v", err)
	}
	v, err := o.thresholdVocabulary()
	if err != nil {
		return err
	}
	if err := v.Check(ts); err != nil {
		return harness.Usagef("--threshold: %v", err)
	}
	return nil
}
