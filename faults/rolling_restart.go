package faults

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// catchUpWait bounds the wait, after each restart, for every partition to
// be fully replicated again before the next broker goes: a rolling restart
// that takes the next broker while the last one is still catching up
// leaves partitions below min ISR, which is an outage, not a restart.
const catchUpWait = 90 * time.Second

// rollingRestart restarts every broker in turn (a graceful stop and start),
// each once it answers and the partitions are fully replicated again. The
// roll completes even when the cell drains meanwhile (a small cell's load
// can end before three brokers restarted): a half-done roll leaves the
// preferred leaders where they were and is not the fault the row names.
// Each firing says whether load was still running then, so the report
// shows which restarts hit a loop under load.
func rollingRestart(ctx context.Context, env Env) error {
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	procs := env.Cluster.(cluster.Processes)
	for i, node := range env.Cluster.Nodes() {
		at := time.Now()
		point, load := turnLoad(ctx, env)
		fired(env, point, at, map[string]string{"node": strconv.Itoa(int(node)),
			"action": "graceful restart", "turn": fmt.Sprintf("%d/%d", i+1, len(env.Cluster.Nodes())), "load": load})
		rctx, cancel := healContext(ctx, restartLimit)
		err := procs.Restart(rctx, node)
		cancel()
		if err != nil {
			return fmt.Errorf("restart broker %d: %w", node, err)
		}
		hctx, cancel := healContext(ctx, catchUpWait)
		left := a.waitFullyReplicated(hctx, catchUpWait)
		cancel()
		healed(env, time.Now(), map[string]string{"node": strconv.Itoa(int(node)),
			"action": "restarted", "took": time.Since(at).Round(time.Millisecond).String(),
			"under_replicated_after": strconv.Itoa(left)})
	}
	return nil
}

// turnLoad is the point and the load of one broker's turn of a roll: under
// load with how much of the input was done, or after the drain (a roll
// that outlasted the cell's load goes on, and says so).
func turnLoad(ctx context.Context, env Env) (point, load string) {
	if ctx.Err() != nil {
		return "after-drain", "drained"
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	done, total := env.Progress(pctx)
	cancel()
	return "under-load", fmt.Sprintf("%d of %d done", done, total)
}
