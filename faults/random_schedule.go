package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// scheduleParts is how many faults one random schedule runs, each once.
const scheduleParts = 3

// scheduleGap separates one part's heal from the next part's action.
const scheduleGap = 3 * time.Second

// Part is a cluster fault a random schedule can run, under its scenario's name.
type Part struct {
	Name string
	Mechanism
}

// RandomSchedule is a seeded mix of the menu's faults: up to scheduleParts
// distinct ones the backend can run, in an order drawn from the seed, one
// after the other, each once and healed before the next. menu is called when
// the schedule runs or is asked what it needs (the catalog derives it from
// its own rows, which refer to this schedule).
func RandomSchedule(menu func() []Part) Mechanism {
	return Mechanism{
		Act: func(ctx context.Context, env Env) error {
			return randomSchedule(ctx, env, schedulePool(menu(), env.Cluster))
		},
		Needs: func(c cluster.Cluster) string { return needsSchedule(schedulePool(menu(), c)) },
		// One schedule serves every mode of the row: its parts act on
		// brokers and links; a part that aims at one cell's roles (a data
		// leader, a share coordinator) aims at the first cell's, and the
		// others meet it as the broker fault it is.
		Scope: ScopeShared,
	}
}

// schedulePool is the parts c can run.
func schedulePool(menu []Part, c cluster.Cluster) []Part {
	var pool []Part
	for _, p := range menu {
		if p.Needs(c) == "" {
			pool = append(pool, p)
		}
	}
	return pool
}

// needsSchedule: a mix wants at least two faults to mix.
func needsSchedule(pool []Part) string {
	if len(pool) >= 2 {
		return ""
	}
	return fmt.Sprintf("a random schedule mixes at least two cluster faults; this backend can run only %d (%s)",
		len(pool), strings.Join(partNames(pool), ", "))
}

// randomSchedule runs the drawn parts. Their events carry the schedule's
// name, with the part's name and the whole schedule in the attributes.
func randomSchedule(ctx context.Context, env Env, pool []Part) error {
	parts := drawSchedule(env.Rand, pool)
	names := strings.Join(partNames(parts), ",")
	for i, p := range parts {
		if i > 0 && !sleepCtx(ctx, scheduleGap) {
			return nil
		}
		part := env
		part.attrs = map[string]string{"part": p.Name, "schedule": names}
		if err := p.Act(ctx, part); err != nil {
			return fmt.Errorf("%s, part %d (%s): %w", env.Name, i+1, p.Name, err)
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	return nil
}

// drawSchedule picks up to scheduleParts distinct parts of pool, in an
// order drawn from rng: the same seed gives the same schedule.
func drawSchedule(rng *rand.Rand, pool []Part) []Part {
	pool = slices.Clone(pool)
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	return pool[:min(scheduleParts, len(pool))]
}

func partNames(ps []Part) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}
