package faults

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// isolation is how long a broker stays cut off: past the controller's
// broker session timeout (9 s), so it is fenced and its leaderships and
// coordinators move, and past replica.lag.time.max.ms (10 s), so it drops
// out of the ISRs.
const isolation = 15 * time.Second

// rejoinWait bounds the wait for a healed broker to be listed again and
// for the ISRs to fill.
const rejoinWait = 90 * time.Second

// partitionFault cuts every link of one random broker (clients and other
// brokers alike), waits, heals every link and waits for the broker to be
// back in the cluster (ORACLE.md "partition").
func partitionFault(ctx context.Context, env Env) error {
	net := env.Cluster.(cluster.Network)
	nodes := env.Cluster.Nodes()
	node := nodes[env.Rand.IntN(len(nodes))]
	at := time.Now()
	if err := net.Isolate(ctx, node); err != nil {
		hctx, cancel := healContext(ctx, time.Minute)
		defer cancel()
		_ = net.HealAll(hctx)
		return fmt.Errorf("isolate broker %d: %w", node, err)
	}
	fired(env, "under-load", at, map[string]string{"node": strconv.Itoa(int(node)),
		"action": "isolate (every link of the broker cut)", "for": isolation.String()})
	sleepCtx(ctx, isolation)
	return healNetwork(ctx, env, &node)
}

// healNetwork heals every link and, when a broker was cut off, waits until
// the others list it again and no partition is under-replicated. Both waits
// are bounded; what they found is in the heal event.
func healNetwork(ctx context.Context, env Env, isolated *cluster.NodeID) error {
	hctx, cancel := healContext(ctx, rejoinWait+30*time.Second)
	defer cancel()
	if err := env.Cluster.(cluster.Network).HealAll(hctx); err != nil {
		return fmt.Errorf("heal links: %w", err)
	}
	attrs := map[string]string{"action": "every link healed"}
	healedAt := time.Now()
	if isolated != nil {
		if err := awaitRejoin(hctx, env, *isolated, attrs); err != nil {
			return err
		}
	}
	healed(env, healedAt, attrs)
	return nil
}

// awaitRejoin waits, within rejoinWait, until the other brokers list node
// again and no partition is under-replicated, and puts what it found into
// attrs (node, rejoined, under_replicated_after, waited).
func awaitRejoin(ctx context.Context, env Env, node cluster.NodeID, attrs map[string]string) error {
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	began := time.Now()
	listed := false
	for !listed && time.Since(began) < rejoinWait {
		if listed = a.listedBy(ctx, node, env.Cluster.Nodes()); !listed && !sleepCtx(ctx, 500*time.Millisecond) {
			break
		}
	}
	attrs["node"] = strconv.Itoa(int(node))
	attrs["rejoined"] = strconv.FormatBool(listed)
	attrs["under_replicated_after"] = strconv.Itoa(a.waitFullyReplicated(ctx, rejoinWait-time.Since(began)))
	attrs["waited"] = time.Since(began).Round(time.Millisecond).String()
	return nil
}
