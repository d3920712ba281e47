package shareconsumer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Heartbeat pacing when the coordinator gives no interval or cannot be
// reached.
const (
	defaultHeartbeatInterval = 5 * time.Second
	heartbeatRetryBackoff    = 200 * time.Millisecond
)

// membership is the member's side of ShareGroupHeartbeat: it joins with
// epoch 0, heartbeats at the interval the coordinator returns, records the
// assignment, rejoins (same member id, epoch 0) when fenced, and leaves with
// epoch -1.
type membership struct {
	cl         *kgo.Client
	coord      *coordinator
	group      string
	memberID   string
	topics     []string
	rack       string
	reqTimeout time.Duration

	mu    sync.Mutex
	epoch int32
	// assigned is the last assignment the coordinator sent, by topic id.
	// Nil until the first one, and again after a fence: a fenced member
	// must give up its partitions until it has rejoined.
	assigned map[[16]byte][]int32
	interval time.Duration
	// err is the last heartbeat error that retrying will not fix (group
	// authorization, an invalid request, a full group); Poll reports it.
	err    error
	joined chan struct{} // closed at the first successful heartbeat
	once   sync.Once
}

func newMembership(cl *kgo.Client, cfg Config) *membership {
	return &membership{
		cl: cl, coord: newCoordinator(cl, cfg.Group), group: cfg.Group, memberID: cfg.MemberID,
		topics: cfg.Topics, rack: cfg.RackID, reqTimeout: cfg.RequestTimeout,
		interval: defaultHeartbeatInterval, joined: make(chan struct{}),
	}
}

// run heartbeats until ctx ends.
func (m *membership) run(ctx context.Context) {
	for {
		wait := m.heartbeat(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// heartbeat sends one ShareGroupHeartbeat and returns how long to wait
// before the next.
func (m *membership) heartbeat(ctx context.Context) time.Duration {
	m.mu.Lock()
	epoch, interval := m.epoch, m.interval
	m.mu.Unlock()

	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID = m.group
	req.MemberID = m.memberID
	req.MemberEpoch = epoch
	// The subscription goes on every heartbeat, not only the join: it is
	// idempotent, and a join whose response was lost looks to us like a
	// later heartbeat of a member the coordinator may not know.
	req.SubscribedTopicNames = m.topics
	if m.rack != "" {
		req.RackID = kmsg.StringPtr(m.rack)
	}
	resp, err := m.send(ctx, req)
	if err != nil {
		if ctx.Err() == nil {
			m.coord.forget()
		}
		return heartbeatRetryBackoff
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		switch {
		case errors.Is(err, kerr.UnknownMemberID), errors.Is(err, kerr.FencedMemberEpoch):
			// The coordinator dropped us (session timeout) or moved past
			// our epoch (a lost response): rejoin at once with the same
			// id. Records this member acquired stay acquired by it, so the
			// caller can still acknowledge them.
			m.mu.Lock()
			m.epoch, m.assigned = 0, nil
			m.mu.Unlock()
			return 0
		case movedCoordinator(err):
			m.coord.forget()
			return heartbeatRetryBackoff
		case errors.Is(err, kerr.CoordinatorLoadInProgress):
			return heartbeatRetryBackoff
		default:
			m.mu.Lock()
			m.err = fmt.Errorf("heartbeat share group %s: %w%s", m.group, err, message(resp.ErrorMessage))
			m.mu.Unlock()
			return interval
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = nil
	m.epoch = resp.MemberEpoch
	if resp.HeartbeatIntervalMillis > 0 {
		m.interval = time.Duration(resp.HeartbeatIntervalMillis) * time.Millisecond
	}
	if resp.Assignment != nil {
		assigned := make(map[[16]byte][]int32, len(resp.Assignment.TopicPartitions))
		for _, tp := range resp.Assignment.TopicPartitions {
			assigned[tp.TopicID] = append(assigned[tp.TopicID], tp.Partitions...)
		}
		m.assigned = assigned
	}
	m.once.Do(func() { close(m.joined) })
	if m.assigned == nil {
		// Joined but nothing assigned yet: the coordinator computes the
		// assignment after the join and hands it out on a later heartbeat.
		// Waiting a whole interval for it leaves a new member idle while the
		// members already fetching take the records (in a short chaos cell,
		// all of them).
		return min(m.interval, awaitAssignmentInterval)
	}
	return m.interval
}

// awaitAssignmentInterval is the heartbeat interval of a member that has
// joined and has no assignment yet.
const awaitAssignmentInterval = 100 * time.Millisecond

func (m *membership) send(ctx context.Context, req *kmsg.ShareGroupHeartbeatRequest) (*kmsg.ShareGroupHeartbeatResponse, error) {
	node, err := m.coord.get(ctx)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, m.reqTimeout)
	defer cancel()
	kresp, err := m.cl.Broker(int(node)).Request(rctx, req)
	if err != nil {
		return nil, fmt.Errorf("heartbeat share group %s: %w", m.group, err)
	}
	return kresp.(*kmsg.ShareGroupHeartbeatResponse), nil
}

// leave sends the epoch -1 heartbeat. The coordinator then removes the
// member and reassigns its partitions; the broker releases what the member
// still held when its share sessions close.
func (m *membership) leave(ctx context.Context) error {
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID = m.group
	req.MemberID = m.memberID
	req.MemberEpoch = -1
	var last error
	// A leave that meets a moved coordinator is worth one more try: else
	// the member lingers until the session timeout and holds partitions.
	for range 2 {
		resp, err := m.send(ctx, req)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err == nil || errors.Is(err, kerr.UnknownMemberID) {
			return nil
		}
		last = err
		m.coord.forget()
	}
	return fmt.Errorf("leave share group %s: %w", m.group, last)
}

func (m *membership) state() (epoch int32, assigned map[[16]byte][]int32, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.epoch, maps.Clone(m.assigned), m.err
}

func message(msg *string) string {
	if msg == nil || *msg == "" {
		return ""
	}
	return ": " + *msg
}
