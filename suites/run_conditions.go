package suites

import (
	"github.com/sharechaos/sharechaos/scenarios"
)

// conditions are what this run's cells ran under that the rows' evidence
// depends on.
func (o Options) conditions() scenarios.Conditions {
	return scenarios.Conditions{PendingLock: o.pendingLock, Lock: o.Lock}
}
