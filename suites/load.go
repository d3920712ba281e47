package suites

import (
	"fmt"
	"strings"

	"github.com/sharechaos/sharechaos/scenarios"
)

// withLoad returns the options a scenario's cells run with: the run's, with
// the row's own load settings (scenarios.Load) in place of the run's where
// the row sets them, and a note naming what the row changed. The lock is
// the cluster's (the embedded broker takes it at start), so a row cannot
// change it for its own cells here.
func withLoad(o *Options, s scenarios.Scenario) (*Options, string) {
	l := s.Load
	c := *o
	var changed []string
	// A soak's records are its rate times its duration.
	if l.Records > 0 && l.Records != c.Records && c.Duration == 0 {
		c.Records = l.Records
		changed = append(changed, fmt.Sprintf("records %d", l.Records))
	}
	if l.Workers > 0 && l.Workers != c.Workers {
		c.Workers = l.Workers
		changed = append(changed, fmt.Sprintf("workers %d", l.Workers))
	}
	if l.Batch > 0 && l.Batch != c.MaxRecords {
		c.MaxRecords = l.Batch
		changed = append(changed, fmt.Sprintf("batch %d", l.Batch))
	}
	if l.Partitions > 0 && l.Partitions != c.Partitions {
		c.Partitions = l.Partitions
		changed = append(changed, fmt.Sprintf("partitions %d", l.Partitions))
	}
	if len(changed) == 0 {
		return o, ""
	}
	return &c, "the scenario runs with its own load: " + strings.Join(changed, ", ")
}
