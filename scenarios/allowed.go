package scenarios

import (
	"fmt"
	"strings"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// Allowed is what the checker tolerates in a cell of this scenario in mode.
func (s Scenario) Allowed(mode ctp.AckMode) check.Allowed {
	e := s.ExpectFor(mode)
	return check.Allowed{Anomalies: e.Allowed, NotApplicable: e.NotApplicable}
}

// AllowedFor looks the scenario up by name; an unknown name is an error
// rather than "nothing allowed", which would judge a cell by the wrong row.
func AllowedFor(mode ctp.AckMode, name string) (check.Allowed, error) {
	s, ok := Lookup(name)
	if !ok {
		return check.Allowed{}, fmt.Errorf("look up allowed anomalies: unknown scenario %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return s.Allowed(mode), nil
}
