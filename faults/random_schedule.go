package faults

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
)

const randomScheduleName = "random-schedule"

// scheduleParts is how many faults one random schedule runs, each once.
const scheduleParts = 3

// scheduleGap separates one part's heal from the next part's action.
const scheduleGap = 3 * time.Second

// schedulePart is a cluster fault a random schedule can run: ORACLE.md's
// "beyond" rows that act on the cluster.
type schedulePart struct {
	name  string
	act   func(ctx context.Context, env Env) error
	needs func(cluster.Cluster) string
}

func scheduleMenu() []schedulePart {
	return []schedulePart{
		{"broker-kill", brokerKill, needsProcesses},
		{shareStateLeaderKillName, shareStateLeaderKill, needsAll(needsProcesses, needsRoles)},
		{dataLeaderKillName, dataLeaderKill, needsAll(needsProcesses, needsRoles)},
		{partitionName, partitionFault, needsAll(needsNetwork, needsBrokerLinks)},
		{slowNetworkName, slowNetwork, needsNetwork},
		{rollingRestartName, rollingRestart, needsRestarts},
		{lateEndTxnName, lateEndTxn, needsAll(needsRoles, needsKafkaToxic)},
	}
}

// schedulePool is the parts c can run.
func schedulePool(c cluster.Cluster) []schedulePart {
	var pool []schedulePart
	for _, p := range scheduleMenu() {
		if p.needs(c) == "" {
			pool = append(pool, p)
		}
	}
	return pool
}

// needsSchedule: a mix wants at least two faults to mix.
func needsSchedule(c cluster.Cluster) string {
	pool := schedulePool(c)
	if len(pool) >= 2 {
		return ""
	}
	var names []string
	for _, p := range pool {
		names = append(names, p.name)
	}
	return fmt.Sprintf("a random schedule mixes at least two cluster faults; this backend can run only %d (%s)",
		len(pool), strings.Join(names, ", "))
}

// randomSchedule draws, from the seed, up to scheduleParts distinct faults
// of the pool the backend can run and their order, and runs them one after
// the other, each once and healed before the next. Their events carry the
// schedule's name, with the part's name in the attributes.
func randomSchedule(ctx context.Context, env Env) error {
	parts := drawSchedule(env.Rand, schedulePool(env.Cluster))
	var names []string
	for _, p := range parts {
		names = append(names, p.name)
	}
	for i, p := range parts {
		if i > 0 && !sleepCtx(ctx, scheduleGap) {
			return nil
		}
		part := env
		part.Fired = partFired(env.Fired, p.name, names)
		if err := p.act(ctx, part); err != nil {
			return fmt.Errorf("%s, part %d (%s): %w", randomScheduleName, i+1, p.name, err)
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	return nil
}

// drawSchedule picks up to scheduleParts distinct parts of pool, in an
// order drawn from rng: the same seed gives the same schedule.
func drawSchedule(rng *rand.Rand, pool []schedulePart) []schedulePart {
	pool = slices.Clone(pool)
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	return pool[:min(scheduleParts, len(pool))]
}

// partFired records a part's events under the schedule's name, with the
// part and the whole schedule in the attributes.
func partFired(record func(history.Event), part string, schedule []string) func(history.Event) {
	return func(e history.Event) {
		attrs := maps.Clone(e.Attrs)
		if attrs == nil {
			attrs = map[string]string{}
		}
		attrs["part"] = part
		attrs["schedule"] = strings.Join(schedule, ",")
		e.Attrs, e.Fault = attrs, randomScheduleName
		record(e)
	}
}
