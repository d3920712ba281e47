package faults

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// downTime is how long a killed broker stays down: past the failover, so
// that its partitions and coordinators get new leaders while it is gone (the
// controller fences it after broker.session.timeout.ms, 9 s; 11 s when the
// broker was also the active controller) and then see it come back; and past
// the loops' own recovery, so that transactions run with acks in them while it
// is gone. Down only 5 s, the broker returned before it was fenced, so a kill
// never handed a share-partition to another leader while the old one was dead
// (with 14 s it found FINDINGS 27). Down 14 s, a kill of the broker that led an
// output partition of every loop stalled them all for the whole span: each
// loop's produce to it waited about 20 s (its transaction timed out at the
// coordinator at 10 s, the produce failed only then), so no transaction had
// acks in it before the broker was back, and the row said UNKNOWN (FINDINGS 27,
// "The kill rows after the fix"). Down 24 s, the loops have run several
// seconds on the new leaders before the broker returns.
const downTime = 24 * time.Second

// restartLimit bounds bringing a broker back (three JVMs on two cores).
const restartLimit = 3 * time.Minute

// brokerKill SIGKILLs a random broker and restarts it (ORACLE.md
// "broker-kill").
func brokerKill(ctx context.Context, env Env) error {
	nodes := env.Cluster.Nodes()
	node := nodes[env.Rand.IntN(len(nodes))]
	return killAndRestart(ctx, env, killPlan{point: "under-load", node: node})
}

// killPlan is one kill -9 and restart of a broker.
type killPlan struct {
	point string
	node  cluster.NodeID
	// attrs say why this broker (the roles it held).
	attrs map[string]string
}

// killAndRestart SIGKILLs plan.node, leaves it down for downTime (less when
// ctx ends), and restarts it under a context of its own: a cell that
// drained meanwhile must still get its broker back.
func killAndRestart(ctx context.Context, env Env, plan killPlan) error {
	procs := env.Cluster.(cluster.Processes)
	at := time.Now()
	if err := procs.Kill(ctx, plan.node); err != nil {
		return fmt.Errorf("kill broker %d: %w", plan.node, err)
	}
	attrs := map[string]string{"node": strconv.Itoa(int(plan.node)), "action": "kill -9"}
	maps.Copy(attrs, plan.attrs)
	fired(env, plan.point, at, attrs)
	sleepCtx(ctx, downTime)
	return restartBroker(ctx, env, plan.node)
}

// restartBroker starts a killed broker again and records the heal.
func restartBroker(ctx context.Context, env Env, node cluster.NodeID) error {
	rctx, cancel := healContext(ctx, restartLimit)
	defer cancel()
	began := time.Now()
	if err := env.Cluster.(cluster.Processes).Restart(rctx, node); err != nil {
		return fmt.Errorf("restart broker %d: %w", node, err)
	}
	healed(env, time.Now(), map[string]string{"node": strconv.Itoa(int(node)), "action": "restart",
		"took": time.Since(began).Round(time.Millisecond).String()})
	return nil
}
