package faults

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Step is one part of a fixed fault schedule: a named mechanism, acting
// After the previous step healed (or after the schedule's trigger).
type Step struct {
	Name string
	Mechanism
	After time.Duration
}

// Sequence is a fixed schedule: the steps in order, each acting and healing
// before the next waits its After. A scenario file writes one as a list of
// faults by name; random-schedule draws its parts instead. Its events carry
// the step's name and the whole schedule, as a random schedule's do.
func Sequence(steps []Step) Mechanism {
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.Name
	}
	all := strings.Join(names, ",")
	return Mechanism{
		Act: func(ctx context.Context, env Env) error {
			for i, s := range steps {
				if s.After > 0 && !sleepCtx(ctx, s.After) {
					return nil
				}
				part := env
				part.attrs = map[string]string{"part": s.Name, "schedule": all}
				if err := s.Act(ctx, part); err != nil {
					return fmt.Errorf("%s, step %d (%s): %w", env.Name, i+1, s.Name, err)
				}
				if ctx.Err() != nil {
					return nil
				}
			}
			return nil
		},
		// Every step must run on the backend: a schedule that skips a step
		// is not the schedule the file wrote.
		Needs: func(c cluster.Cluster) string {
			for _, s := range steps {
				if s.Needs == nil {
					continue
				}
				if why := s.Needs(c); why != "" {
					return "step " + s.Name + ": " + why
				}
			}
			return ""
		},
	}
}
