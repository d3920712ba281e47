package faults

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
)

// needsProcesses: broker crashes need a backend that can SIGKILL one broker and
// bring it back faithfully. kfake cannot: its kill -9 recovery loses share-group
// progress and hides committed data (ENVIRONMENT.md), which would test kfake,
// not the system under test.
func needsProcesses(c cluster.Cluster) string {
	if _, ok := c.(cluster.Processes); !ok {
		return "broker crashes need real Kafka: this backend cannot kill -9 and recover a broker faithfully (kfake loses share-group progress on kill -9)"
	}
	return ""
}

// brokerKill SIGKILLs a random broker once load is under way, waits a little,
// and restarts it (ORACLE.md "broker-kill").
func brokerKill(ctx context.Context, env Env) error {
	procs := env.Cluster.(cluster.Processes)
	if err := waitForLoad(ctx, env, 0.2); err != nil {
		return err
	}
	nodes := env.Cluster.Nodes()
	node := nodes[env.Rand.IntN(len(nodes))]
	at := time.Now()
	if err := procs.Kill(ctx, node); err != nil {
		return fmt.Errorf("kill broker %d: %w", node, err)
	}
	env.Fired(history.Event{TS: at.UnixNano(), Type: history.Info, F: history.FFaultFired, Fault: "broker-kill",
		Point: "under-load", Attrs: map[string]string{"node": strconv.Itoa(int(node)), "action": "kill -9"}})
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
	}
	restartCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancel()
	if err := procs.Restart(restartCtx, node); err != nil {
		return fmt.Errorf("restart broker %d: %w", node, err)
	}
	env.Fired(history.Event{Type: history.Info, F: "heal", Fault: "broker-kill",
		Attrs: map[string]string{"node": strconv.Itoa(int(node)), "action": "restart"}})
	return nil
}

// waitForLoad waits until a fraction of the input is done, so the fault hits a
// loop under load rather than an idle one.
func waitForLoad(ctx context.Context, env Env, fraction float64) error {
	for {
		done, total := env.Progress(ctx)
		if total > 0 && float64(done) >= fraction*float64(total) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
