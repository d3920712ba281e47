package docker

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Kill SIGKILLs the broker's JVM (docker kill -s KILL) and returns once its
// container has stopped. The data stays in the container for Restart.
func (c *Cluster) Kill(ctx context.Context, node cluster.NodeID) error {
	ctr, err := c.broker(node)
	if err != nil {
		return err
	}
	if err := c.eng.kill(ctx, ctr.GetContainerID()); err != nil {
		return fmt.Errorf("kill broker %d: %w", node, err)
	}
	c.opts.Logger.Info("broker killed", "node", node)
	return nil
}

// restartGrace is how long a running broker gets to shut down cleanly when
// Restart is called on it, before the engine SIGKILLs it.
const restartGrace = 30 * time.Second

// Restart starts a broker again on the same data and addresses (the same
// container, its client proxy unchanged) and returns once it answers: a
// request to it through its proxy succeeds and the metadata lists it again
// (registered with the controller and unfenced). A running broker is first
// stopped gracefully (SIGTERM); a paused one is resumed.
func (c *Cluster) Restart(ctx context.Context, node cluster.NodeID) error {
	ctr, err := c.broker(node)
	if err != nil {
		return err
	}
	id := ctr.GetContainerID()
	st, err := c.eng.state(ctx, id)
	if err != nil {
		return fmt.Errorf("restart broker %d: %w", node, err)
	}
	switch st {
	case container.StatePaused:
		if err := c.eng.unpause(ctx, id); err != nil {
			return fmt.Errorf("restart broker %d: %w", node, err)
		}
		fallthrough
	case container.StateRunning:
		if err := c.eng.stop(ctx, id, restartGrace); err != nil {
			return fmt.Errorf("restart broker %d: %w", node, err)
		}
	}
	began := time.Now()
	if err := c.eng.start(ctx, id); err != nil {
		return fmt.Errorf("restart broker %d: %w", node, err)
	}
	if err := c.waitAnswers(ctx, node); err != nil {
		return fmt.Errorf("restart broker %d: %w", node, err)
	}
	c.opts.Logger.Info("broker restarted", "node", node, "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// Pause freezes the broker's container (docker pause): its process stops,
// its connections stay open and hang.
func (c *Cluster) Pause(ctx context.Context, node cluster.NodeID) error {
	ctr, err := c.broker(node)
	if err != nil {
		return err
	}
	if err := c.eng.pause(ctx, ctr.GetContainerID()); err != nil {
		return fmt.Errorf("pause broker %d: %w", node, err)
	}
	return nil
}

// Resume thaws a paused broker.
func (c *Cluster) Resume(ctx context.Context, node cluster.NodeID) error {
	ctr, err := c.broker(node)
	if err != nil {
		return err
	}
	if err := c.eng.unpause(ctx, ctr.GetContainerID()); err != nil {
		return fmt.Errorf("resume broker %d: %w", node, err)
	}
	return nil
}

// waitAnswers polls until node answers a request through its own client
// proxy and another broker's metadata lists it (registered with the
// controller and unfenced). Another broker's, because the node's own view can
// be stale: cut off, it never learned that it was fenced.
func (c *Cluster) waitAnswers(ctx context.Context, node cluster.NodeID) error {
	// A client of its own, seeded with this broker only: the admin client
	// would send the request to whichever broker it likes.
	direct, err := kgo.NewClient(append(c.ClientOpts(), kgo.SeedBrokers(c.bootstrap[node-1]), kgo.DialTimeout(2*time.Second))...)
	if err != nil {
		return fmt.Errorf("create client for broker %d: %w", node, err)
	}
	defer direct.Close()
	var last error
	for {
		last = c.answers(ctx, direct, node)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for broker %d to answer (last: %v): %w", node, last, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (c *Cluster) answers(ctx context.Context, direct *kgo.Client, node cluster.NodeID) error {
	reqCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := direct.SeedBrokers()[0].Request(reqCtx, kmsg.NewPtrApiVersionsRequest()); err != nil {
		return fmt.Errorf("api versions: %w", err)
	}
	if c.opts.Brokers == 1 {
		return nil
	}
	// Any other broker that answers will do: others may be down on purpose.
	var last error = fmt.Errorf("no other broker answered")
	for _, other := range c.Nodes() {
		if other == node {
			continue
		}
		resp, err := c.admin.Broker(int(other)).Request(reqCtx, kmsg.NewPtrMetadataRequest())
		if err != nil {
			last = fmt.Errorf("metadata from broker %d: %w", other, err)
			continue
		}
		if slices.ContainsFunc(resp.(*kmsg.MetadataResponse).Brokers, func(b kmsg.MetadataResponseBroker) bool {
			return b.NodeID == int32(node)
		}) {
			return nil
		}
		last = fmt.Errorf("broker %d's metadata does not list broker %d yet", other, node)
	}
	return last
}
