package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// Isolate cuts every link of one broker: its client link, and the
// inter-broker and controller links in both directions, including the ones
// to itself (its own controller is reached through a proxy too). A cut link
// is a disabled proxy: open connections are closed, new ones refused. The
// broker is then fenced by the controller quorum after its session timeout
// and clients lose it.
func (c *Cluster) Isolate(ctx context.Context, node cluster.NodeID) error {
	if _, err := c.broker(node); err != nil {
		return err
	}
	return c.setLinks(ctx, false, func(l proxyLink) bool { return l.Touches(node) })
}

// Disconnect cuts the links between two brokers, in both directions (a
// partial partition); clients still reach both.
func (c *Cluster) Disconnect(ctx context.Context, a, b cluster.NodeID) error {
	for _, n := range []cluster.NodeID{a, b} {
		if _, err := c.broker(n); err != nil {
			return err
		}
	}
	return c.setLinks(ctx, false, func(l proxyLink) bool {
		return l.Kind != cluster.LinkClient && (l.From == a && l.To == b || l.From == b && l.To == a)
	})
}

func (c *Cluster) setLinks(ctx context.Context, enabled bool, match func(proxyLink) bool) error {
	var errs []error
	for _, l := range c.links {
		if match(l) {
			if err := c.api.setEnabled(ctx, l.Name, enabled); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("set links enabled=%t: %w", enabled, err)
	}
	return nil
}

// Names of the latency toxics SetLatency manages, one per direction.
const (
	latencyUp   = "sharechaos-latency-up"
	latencyDown = "sharechaos-latency-down"
)

// SetLatency delays every byte on every link, in both directions, by
// latency ± jitter (so a request/response round trip gains about twice
// latency). Zero latency and jitter remove the delay.
func (c *Cluster) SetLatency(ctx context.Context, latency, jitter time.Duration) error {
	if latency < 0 || jitter < 0 {
		return fmt.Errorf("set latency: negative latency %v or jitter %v", latency, jitter)
	}
	var errs []error
	for _, l := range c.links {
		for _, t := range []struct{ name, stream string }{{latencyUp, "upstream"}, {latencyDown, "downstream"}} {
			var err error
			if latency == 0 && jitter == 0 {
				err = c.api.removeToxic(ctx, l.Name, t.name)
			} else {
				err = c.api.setToxic(ctx, l.Name, toxicSpec{
					Name: t.name, Type: "latency", Stream: t.stream, Toxicity: 1,
					Attributes: map[string]any{"latency": latency.Milliseconds(), "jitter": jitter.Milliseconds()},
				})
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("set latency %v±%v: %w", latency, jitter, err)
	}
	return nil
}

// HealAll re-enables every proxy and removes every toxic (toxiproxy's
// reset). Paused or killed brokers stay as they are.
func (c *Cluster) HealAll(ctx context.Context) error {
	if err := c.api.reset(ctx); err != nil {
		return fmt.Errorf("heal all links: %w", err)
	}
	return nil
}
