package bench

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Vocabulary is what thresholds may name in one run: the metrics it records
// and the tags (with their values) its scopes carry. A threshold outside it
// would match nothing or judge nothing, silently; Check refuses it before
// anything runs.
type Vocabulary struct {
	// Latencies take every statistic; Counters only count and rate.
	Latencies, Counters []string
	// Tags maps a tag to its values in this run; a nil list takes any value.
	Tags map[string][]string
}

// Check returns an error naming the first metric, tag or tag value of ts
// that the run does not have, or a latency statistic asked of a counter.
func (v Vocabulary) Check(ts Thresholds) error {
	for _, t := range ts {
		isLatency, isCounter := slices.Contains(v.Latencies, t.Metric), slices.Contains(v.Counters, t.Metric)
		switch {
		case !isLatency && !isCounter:
			return fmt.Errorf("threshold %q: unknown metric %q (this run records %s)", t.Text, t.Metric,
				strings.Join(append(slices.Clone(v.Latencies), v.Counters...), ", "))
		case !isLatency && t.latencyStat():
			return fmt.Errorf("threshold %q: %s is a count: want count or rate, not %s", t.Text, t.Metric, t.Stat)
		}
		keys := make([]string, 0, len(t.Tags))
		for k := range t.Tags {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			values, ok := v.Tags[k]
			if !ok {
				known := make([]string, 0, len(v.Tags))
				for tk := range v.Tags {
					known = append(known, tk)
				}
				sort.Strings(known)
				return fmt.Errorf("threshold %q: unknown tag %q (tags: %s)", t.Text, k, strings.Join(known, ", "))
			}
			if values != nil && !slices.Contains(values, t.Tags[k]) {
				return fmt.Errorf("threshold %q: %s:%s is not in this run (%s: %s)", t.Text, k, t.Tags[k], k, strings.Join(values, ", "))
			}
		}
	}
	return nil
}
