package hunt

import (
	"context"
	"fmt"
	"os"

	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/harness"
)

// probeMenu asks a started cluster of the backend which of the menu's
// cluster faults it can run, and returns why each other one cannot. Only
// where a cluster starts in a second (not docker: there every fault runs,
// and one the cluster lacks is dropped by the first trial that meets it,
// N/A naming its step).
func probeMenu(ctx context.Context, o Options, choice harness.Choice) (map[string]string, error) {
	if choice.Name == "docker" {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "sharechaos-hunt-probe-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	so, _, err := harness.StartOptionsFor(o.Common, choice, harness.StartOptions{Brokers: o.Brokers, RunID: "hunt-probe",
		Dir: dir, Lock: o.Lock, Log: o.Log, Flags: o.Backends})
	if err != nil {
		return nil, err
	}
	c, err := harness.StartBackend(ctx, choice, so)
	if err != nil {
		return nil, fmt.Errorf("probe the %s backend's faults: %w", choice.Name, err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	out := map[string]string{}
	for _, m := range o.Menu {
		if s, ok := scenarios.Lookup(m); ok && s.Cluster != nil {
			if why := s.Cluster.Needs(c); why != "" {
				out[m] = why
			}
		}
	}
	return out, nil
}
