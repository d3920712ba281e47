package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Isolate disables node's proxy: its listener closes, so new connections are
// refused, and every open client connection through it is closed.
//
// Only client links are cut. kfake runs every broker in one process with one
// event loop, so there are no inter-broker or controller links to cut: the
// isolated broker keeps leading its partitions and coordinating its groups and
// transactions, and the rest of the cluster does not notice. A fault that
// needs a broker cut off from its peers (leader failover, fencing of a
// partitioned coordinator) needs the docker backend.
func (c *Cluster) Isolate(_ context.Context, node cluster.NodeID) error {
	if err := c.checkNode(node); err != nil {
		return fmt.Errorf("isolate broker: %w", err)
	}
	c.proxies.disable(int(node))
	return nil
}

// SetLatency delays everything the brokers send to clients by latency plus or
// minus jitter, on every proxy (the downstream direction only: a request's
// round trip grows by latency, not twice). Zero latency removes the delay.
func (c *Cluster) SetLatency(ctx context.Context, latency, jitter time.Duration) error {
	if latency < 0 || jitter < 0 || (latency > 0 && jitter > latency) {
		return fmt.Errorf("set latency: want 0 <= jitter <= latency, got latency %v jitter %v", latency, jitter)
	}
	return c.proxies.setLatency(ctx, latency, jitter)
}

// HealAll removes every toxic and enables every proxy again.
func (c *Cluster) HealAll(ctx context.Context) error {
	if err := c.proxies.removeToxics(ctx); err != nil {
		return fmt.Errorf("heal: %w", err)
	}
	if err := c.proxies.enableAll(); err != nil {
		return fmt.Errorf("heal: %w", err)
	}
	return nil
}

func (c *Cluster) checkNode(node cluster.NodeID) error {
	if node < 0 || int(node) >= c.opts.Brokers {
		return fmt.Errorf("no broker %d in a %d-broker cluster", node, c.opts.Brokers)
	}
	return nil
}
