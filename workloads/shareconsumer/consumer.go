package shareconsumer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrClosed is returned by calls on a closed Consumer.
var ErrClosed = errors.New("share consumer closed")

// Consumer is one share-group member. Poll, Acknowledge and the getters are
// safe for concurrent use; requests to one broker are serialized (see
// session).
type Consumer struct {
	cfg     Config
	cl      *kgo.Client
	meta    *metadata
	members *membership

	hbCancel context.CancelFunc
	hbDone   chan struct{}

	mu       sync.Mutex
	sessions map[int32]*session
	next     int // round-robin position over the brokers to fetch from
	closed   bool

	// gapsSent counts offsets sent as GAP, for tests to see that control
	// records were settled by the consumer rather than by lock expiry.
	gapsSent atomic.Int64
}

// New builds a client, joins the share group and returns once the
// coordinator has accepted the member (epoch > 0). The assignment may
// arrive later; Poll returns nothing until it has.
func New(ctx context.Context, cfg Config) (*Consumer, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	opts := append([]kgo.Opt{
		kgo.SeedBrokers(cfg.Bootstrap...),
		kgo.ConnIdleTimeout(cfg.ConnIdleTimeout),
		kgo.ClientID("sharechaos-shareconsumer"),
	}, cfg.ClientOpts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("create share consumer client: %w", err)
	}
	c := &Consumer{cfg: cfg, cl: cl, meta: newMetadata(), members: newMembership(cl, cfg), sessions: map[int32]*session{}}
	jctx, cancel := context.WithTimeout(ctx, cfg.JoinTimeout)
	defer cancel()
	if err := c.meta.refresh(jctx, cl, cfg.Topics); err != nil {
		cl.Close()
		return nil, fmt.Errorf("join share group %s: %w", cfg.Group, err)
	}
	hctx, hcancel := context.WithCancel(context.Background())
	c.hbCancel, c.hbDone = hcancel, make(chan struct{})
	go func() {
		defer close(c.hbDone)
		c.members.run(hctx)
	}()
	select {
	case <-c.members.joined:
		return c, nil
	case <-jctx.Done():
	}
	_, _, hbErr := c.members.state()
	hcancel()
	<-c.hbDone
	cl.Close()
	return nil, fmt.Errorf("join share group %s: %w", cfg.Group, errors.Join(context.Cause(jctx), hbErr))
}

// MemberID is the member id, fixed for the consumer's life.
func (c *Consumer) MemberID() string { return c.cfg.MemberID }

// MemberEpoch is the member epoch of the last successful heartbeat; 0 while
// rejoining after a fence.
func (c *Consumer) MemberEpoch() int32 {
	epoch, _, _ := c.members.state()
	return epoch
}

// Assignment is the member's current assignment by topic name; partitions
// of topic ids not resolved yet are left out.
func (c *Consumer) Assignment() map[string][]int32 {
	_, assigned, _ := c.members.state()
	out := map[string][]int32{}
	for id, ps := range assigned {
		if name, ok := c.meta.name(id); ok {
			out[name] = slices.Sorted(slices.Values(ps))
		}
	}
	return out
}

// Poll acquires records and returns them, at most about Config.MaxRecords,
// waiting at most Config.MaxWait for some. It never acknowledges anything of
// the caller's. With nothing assigned yet it waits MaxWait and returns
// nothing.
//
// It sends one ShareFetch to the next broker (round-robin) that leads an
// assigned partition; with Config.Spread it first asks every such broker at
// once, and each for every partition it leads (spread.go).
//
// Poll may return records and an error together (a partition's data that
// did not decode, a partition error): the records are acquired all the
// same and the caller settles them as usual.
func (c *Consumer) Poll(ctx context.Context) ([]*Record, error) {
	if c.isClosed() {
		return nil, ErrClosed
	}
	_, assigned, hbErr := c.members.state()
	if hbErr != nil {
		return nil, hbErr
	}
	if c.meta.isStale() || c.unresolved(assigned) {
		if err := c.refresh(ctx); err != nil {
			return nil, err
		}
	}
	want := c.wanted(assigned)
	if c.cfg.Spread && spreads(want) {
		if recs, err := c.spread(ctx, want); len(recs) > 0 || ctx.Err() != nil {
			return recs, err
		}
	}
	node, ok := c.pick(want)
	if !ok {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.cfg.MaxWait):
			return nil, nil
		}
	}
	return c.fetchFrom(ctx, node, want[node], c.fullFetch())
}

// fetchFrom fetches from node's session, reopening it once when the broker
// forgot it.
func (c *Consumer) fetchFrom(ctx context.Context, node int32, want map[topicPartition]struct{}, lim fetchLimit) ([]*Record, error) {
	s := c.session(node)
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := c.fetch(ctx, s, want, lim)
	if errors.Is(err, errSessionReset) {
		// The broker forgot the session (restart, or the connection was
		// replaced): reopen it now rather than return an empty Poll.
		recs, err = c.fetch(ctx, s, want, lim)
	}
	return recs, err
}

func (c *Consumer) refresh(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	return c.meta.refresh(rctx, c.cl, c.cfg.Topics)
}

// unresolved reports an assigned topic id we have no name for.
func (c *Consumer) unresolved(assigned map[[16]byte][]int32) bool {
	for id := range assigned {
		if _, ok := c.meta.name(id); !ok {
			return true
		}
	}
	return false
}

// wanted groups the assigned partitions by leader. A broker whose session
// still holds partitions it should no longer fetch is listed with none, so
// that a fetch there forgets them.
func (c *Consumer) wanted(assigned map[[16]byte][]int32) map[int32]map[topicPartition]struct{} {
	want := map[int32]map[topicPartition]struct{}{}
	for id, ps := range assigned {
		if _, ok := c.meta.name(id); !ok {
			continue
		}
		for _, p := range ps {
			tp := topicPartition{id, p}
			node, ok := c.meta.leader(tp)
			if !ok {
				c.meta.markStale()
				continue
			}
			if want[node] == nil {
				want[node] = map[topicPartition]struct{}{}
			}
			want[node][tp] = struct{}{}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for node, s := range c.sessions {
		if _, ok := want[node]; ok {
			continue
		}
		// TryLock: a session busy with a request is not inspected; its
		// forgetting waits for a later Poll.
		if s.mu.TryLock() {
			if s.epoch > 0 && len(s.parts) > 0 {
				want[node] = map[topicPartition]struct{}{}
			}
			s.mu.Unlock()
		}
	}
	return want
}

// pick chooses the broker to fetch from, round-robin in node order.
func (c *Consumer) pick(want map[int32]map[topicPartition]struct{}) (int32, bool) {
	if len(want) == 0 {
		return 0, false
	}
	nodes := slices.Sorted(maps.Keys(want))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	return nodes[c.next%len(nodes)], true
}

func (c *Consumer) session(node int32) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[node]
	if !ok {
		s = newSession(node)
		c.sessions[node] = s
	}
	return s
}

func (c *Consumer) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Close stops heartbeating, closes every share session (ShareAcknowledge
// with epoch -1, carrying pending gaps) and leaves the group (member epoch
// -1), then closes the client. It acknowledges none of the caller's records:
// the broker releases what this member still held when its sessions close,
// and those records are redelivered with their delivery count incremented.
func (c *Consumer) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.closed = true
	sessions := slices.Collect(maps.Values(c.sessions))
	c.mu.Unlock()

	c.hbCancel()
	<-c.hbDone
	var errs []error
	for _, s := range sessions {
		s.mu.Lock()
		if err := c.closeSession(ctx, s); err != nil {
			errs = append(errs, err)
		}
		s.mu.Unlock()
	}
	lctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	if err := c.members.leave(lctx); err != nil {
		errs = append(errs, err)
	}
	c.cl.Close()
	return errors.Join(errs...)
}

// closeSession sends epoch -1 on an open session. A session the broker no
// longer knows is already closed. The caller holds s.mu.
func (c *Consumer) closeSession(ctx context.Context, s *session) error {
	if s.epoch == 0 {
		return nil
	}
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID = kmsg.StringPtr(c.cfg.Group)
	req.MemberID = kmsg.StringPtr(c.cfg.MemberID)
	req.ShareSessionEpoch = -1
	for _, tp := range sortedParts(s.gaps) {
		if _, in := s.parts[tp]; !in {
			continue
		}
		ti := slices.IndexFunc(req.Topics, func(t kmsg.ShareAcknowledgeRequestTopic) bool { return t.TopicID == tp.id })
		if ti < 0 {
			t := kmsg.NewShareAcknowledgeRequestTopic()
			t.TopicID = tp.id
			req.Topics = append(req.Topics, t)
			ti = len(req.Topics) - 1
		}
		p := kmsg.NewShareAcknowledgeRequestTopicPartition()
		p.Partition = tp.partition
		for _, g := range gapAcks(s.gaps[tp]) {
			c.gapsSent.Add(g.last - g.first + 1)
			b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
			b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = g.first, g.last, []int8{int8(Gap)}
			p.AcknowledgementBatches = append(p.AcknowledgementBatches, b)
		}
		req.Topics[ti].Partitions = append(req.Topics[ti].Partitions, p)
	}
	s.reset()
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	kresp, err := c.cl.Broker(int(s.node)).Request(rctx, req)
	if err != nil {
		return fmt.Errorf("close share session on broker %d: %w", s.node, err)
	}
	resp := kresp.(*kmsg.ShareAcknowledgeResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil && !errors.Is(err, kerr.ShareSessionNotFound) {
		return fmt.Errorf("close share session on broker %d: %w%s", s.node, err, message(resp.ErrorMessage))
	}
	return nil
}
