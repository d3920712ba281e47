package suites

import (
	"strings"

	"github.com/sharechaos/sharechaos/faults"
)

// Profiles select sets of scenarios (CONTRACT.md --profile).
var Profiles = map[string][]string{
	// smoke: what CI runs; a few cases, well inside CI's time.
	"smoke": {"steady", "crash-after-commit", "crash-after-acks"},
	// nightly: every row of the fault table.
	"nightly": faults.Names(),
	// qualification: nightly, repeated (see Options.Repeats).
	"qualification": faults.Names(),
}

// scenarios resolves --scenario or --profile into fault rows.
func (o *Options) scenarios() ([]faults.Fault, error) {
	names := o.Scenarios
	if len(names) == 0 {
		p := o.Profile
		if p == "" {
			p = "smoke"
		}
		var ok bool
		if names, ok = Profiles[p]; !ok {
			return nil, usagef("--profile %q: want smoke, nightly or qualification", p)
		}
	}
	var out []faults.Fault
	for _, n := range names {
		f, ok := faults.Lookup(n)
		if !ok {
			return nil, usagef("unknown scenario %q (known: %s)", n, strings.Join(faults.Names(), ", "))
		}
		out = append(out, f)
	}
	return out, nil
}
