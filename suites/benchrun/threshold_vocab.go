package benchrun

import (
	"strconv"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// thresholdVocabulary is what a bench's thresholds may name: the metrics the
// bench records and the tags report.go gives each group, with this bench's
// values (its modes, batch sizes, partition counts, link latencies, rates:
// "20", "closed").
func (o Options) thresholdVocabulary() bench.Vocabulary {
	var modes, batches, partitions, latencies, rates []string
	for _, r := range o.Rates {
		rates = append(rates, rateName(r))
	}
	for _, m := range o.Modes {
		modes = append(modes, string(m))
	}
	for _, b := range o.Batches {
		batches = append(batches, strconv.Itoa(b))
	}
	for _, p := range o.Partitions {
		partitions = append(partitions, strconv.Itoa(p))
	}
	for _, l := range o.Latencies {
		latencies = append(latencies, l.String())
	}
	return bench.Vocabulary{
		Latencies: bench.MetricNames(bench.Latency, bench.InBench),
		Counters:  bench.MetricNames(bench.Counter, bench.InBench),
		Tags: map[string][]string{
			"mode": modes, "batch": batches, "partitions": partitions, "latency": latencies, "rate": rates,
			"realization": kip1289.RealizationNames(),
		},
	}
}

// checkThresholds refuses, before the cluster starts, a threshold naming a
// metric, tag or tag value this bench does not have.
func (o Options) checkThresholds() error {
	ts, err := bench.ParseThresholds(o.Thresholds)
	if err != nil {
		return usagef("--threshold: %v", err)
	}
	if err := o.thresholdVocabulary().Check(ts); err != nil {
		return usagef("--threshold: %v", err)
	}
	return nil
}
