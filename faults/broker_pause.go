package faults

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// frozenFor is how long a broker stays frozen: past the controller's broker
// session timeout (9 s), so it is fenced and its leaderships and
// coordinators move while its connections stay open (clients' requests to
// it hang until their own timeouts instead of being refused), as on a long
// GC pause or a frozen VM.
const frozenFor = 15 * time.Second

// brokerPause freezes one random broker under load (SIGSTOP, docker pause),
// thaws it, and waits until the others list it again and no partition is
// under-replicated (ORACLE.md "broker-pause"). Unlike a kill, the frozen
// broker comes back with everything it held in memory, and then learns that
// the cluster went on without it.
func brokerPause(ctx context.Context, env Env) error {
	p := env.Cluster.(cluster.Pauser)
	nodes := env.Cluster.Nodes()
	node := nodes[env.Rand.IntN(len(nodes))]
	at := time.Now()
	if err := p.Pause(ctx, node); err != nil {
		hctx, cancel := healContext(ctx, time.Minute)
		defer cancel()
		_ = p.Resume(hctx, node)
		return fmt.Errorf("pause broker %d: %w", node, err)
	}
	fired(env, "under-load", at, map[string]string{"node": strconv.Itoa(int(node)),
		"action": "pause (frozen: its connections stay open, nothing answers)", "for": frozenFor.String()})
	sleepCtx(ctx, frozenFor)
	hctx, cancel := healContext(ctx, rejoinWait+30*time.Second)
	defer cancel()
	resumedAt := time.Now()
	if err := p.Resume(hctx, node); err != nil {
		return fmt.Errorf("resume broker %d: %w", node, err)
	}
	attrs := map[string]string{"action": "resumed"}
	if err := awaitRejoin(hctx, env, node, attrs); err != nil {
		return err
	}
	healed(env, resumedAt, attrs)
	return nil
}
