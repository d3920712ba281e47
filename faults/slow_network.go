package faults

import (
	"context"
	"fmt"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// The slow network: every link, both directions on the docker backend (a
// round trip gains about twice the latency), for slowFor. Well below the
// acquisition lock and the transaction timeout, so it slows the loop
// without expiring anything by itself.
const (
	slowLatency = 100 * time.Millisecond
	slowJitter  = 20 * time.Millisecond
	slowFor     = 20 * time.Second
)

// slowNetwork adds latency to every link for a while, then heals
// (ORACLE.md "slow-network": the latency shows in the cell's commit
// percentiles).
func slowNetwork(ctx context.Context, env Env) error {
	at := time.Now()
	if err := env.Cluster.(cluster.Network).SetLatency(ctx, slowLatency, slowJitter); err != nil {
		_ = healNetwork(ctx, env, nil)
		return fmt.Errorf("slow the network: %w", err)
	}
	fired(env, "under-load", at, map[string]string{"action": "latency on every link",
		"latency": slowLatency.String(), "jitter": slowJitter.String(), "for": slowFor.String()})
	sleepCtx(ctx, slowFor)
	return healNetwork(ctx, env, nil)
}
