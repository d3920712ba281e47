package suites

import (
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// allowedFor is what the checker tolerates in a cell: the catalog row's
// expectation for the mode.
func allowedFor(s scenarios.Scenario, mode ctp.AckMode) ctp.Allowed {
	e := s.ExpectFor(mode)
	return ctp.Allowed{Anomalies: e.Allowed, NotApplicable: e.NotApplicable}
}
