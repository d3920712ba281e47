package docker

import (
	"context"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The probe Start uses to prove share groups work end to end.
const (
	readyTopic = "__sharechaos-ready"
	readyGroup = "__sharechaos-ready"
)

// waitReady returns once every broker is in the metadata and a share group
// has consumed a record produced through the proxies. A cluster that only
// answers metadata can still fail the first share-group join (the share
// coordinator's state topic is created on first use, replicated on every
// broker), so the probe does the real thing.
func (c *Cluster) waitReady(ctx context.Context) error {
	if err := c.waitBrokers(ctx); err != nil {
		return err
	}
	rf := int16(min(3, c.opts.Brokers))
	if err := retry(ctx, func() error {
		_, err := c.adm.CreateTopic(ctx, 1, rf, nil, readyTopic)
		if errors.Is(err, kerr.TopicAlreadyExists) {
			return nil
		}
		return err
	}); err != nil {
		return fmt.Errorf("create probe topic: %w", err)
	}
	if err := retry(ctx, func() error {
		return c.SetGroupConfigs(ctx, readyGroup, map[string]string{"share.auto.offset.reset": "earliest"})
	}); err != nil {
		return fmt.Errorf("configure probe group: %w", err)
	}
	if err := c.admin.ProduceSync(ctx, &kgo.Record{Topic: readyTopic, Value: []byte("ready")}).FirstErr(); err != nil {
		return fmt.Errorf("produce probe record: %w", err)
	}
	if err := c.shareConsumeOne(ctx); err != nil {
		return err
	}
	if _, err := c.adm.DeleteTopic(ctx, readyTopic); err != nil {
		c.opts.Logger.Warn("could not delete the probe topic", "topic", readyTopic, "err", err)
	}
	return nil
}

// waitBrokers waits until the metadata lists every broker.
func (c *Cluster) waitBrokers(ctx context.Context) error {
	var seen int
	for {
		m, err := c.adm.BrokerMetadata(ctx)
		if err == nil {
			seen = len(m.Brokers)
			if seen == c.opts.Brokers {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %d brokers in metadata (saw %d, last error %v): %w",
				c.opts.Brokers, seen, err, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// shareConsumeOne joins the probe share group and polls until it gets the
// probe record, which it accepts.
func (c *Cluster) shareConsumeOne(ctx context.Context) error {
	cl, err := kgo.NewClient(append(c.ClientOpts(),
		kgo.SeedBrokers(c.bootstrap...),
		kgo.ShareGroup(readyGroup),
		kgo.ConsumeTopics(readyTopic),
	)...)
	if err != nil {
		return fmt.Errorf("create probe share consumer: %w", err)
	}
	defer cl.Close()
	for {
		pollCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		fetches := cl.PollFetches(pollCtx)
		cancel()
		var got bool
		fetches.EachRecord(func(r *kgo.Record) {
			got = true
			r.Ack(kgo.AckAccept)
		})
		if got {
			if err := cl.FlushAcks(ctx); err != nil {
				return fmt.Errorf("acknowledge probe record: %w", err)
			}
			return nil
		}
		if ctx.Err() != nil {
			var last error
			fetches.EachError(func(_ string, _ int32, err error) { last = err })
			return fmt.Errorf("share-consume probe record (last error %v): %w", last, ctx.Err())
		}
	}
}

// SetGroupConfigs sets group-level configs of group through the cluster's
// admin client (cluster.SetGroupConfigs).
func (c *Cluster) SetGroupConfigs(ctx context.Context, group string, configs map[string]string) error {
	return cluster.SetGroupConfigs(ctx, c.admin, group, configs)
}

// retry calls fn until it succeeds or ctx ends, for requests that fail while
// a young (or just restarted) cluster settles.
func retry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up: %w)", err, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}
