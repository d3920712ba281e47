package shareconsumer

import (
	"context"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// topicPartition names a partition by topic id, as the share RPCs do.
type topicPartition struct {
	id        [16]byte
	partition int32
}

// metadata maps topic ids to names (assignments and share responses name
// topics by id, callers by name) and knows each partition's leader, where
// its share session lives.
type metadata struct {
	mu      sync.Mutex
	names   map[[16]byte]string
	ids     map[string][16]byte
	leaders map[topicPartition]int32
	// stale is set when a response says a leader moved or a topic id is
	// unknown; the next Poll refreshes before it fetches.
	stale bool
}

func newMetadata() *metadata {
	return &metadata{names: map[[16]byte]string{}, ids: map[string][16]byte{}, leaders: map[topicPartition]int32{}}
}

// refresh asks for the topics' metadata. Going through kgo.Client.Request
// also updates the client's broker list, so Broker(id) knows a new leader.
func (m *metadata) refresh(ctx context.Context, cl *kgo.Client, topics []string) error {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("refresh metadata: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var firstErr error
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil || t.Topic == nil {
			if firstErr == nil && err != nil {
				firstErr = fmt.Errorf("refresh metadata of %s: %w", deref(t.Topic), err)
			}
			continue
		}
		m.names[t.TopicID] = *t.Topic
		m.ids[*t.Topic] = t.TopicID
		for _, p := range t.Partitions {
			tp := topicPartition{t.TopicID, p.Partition}
			if p.Leader >= 0 {
				m.leaders[tp] = p.Leader
			} else {
				delete(m.leaders, tp)
			}
		}
	}
	m.stale = firstErr != nil
	return firstErr
}

func (m *metadata) name(id [16]byte) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.names[id]
	return n, ok
}

func (m *metadata) id(name string) ([16]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.ids[name]
	return id, ok
}

func (m *metadata) leader(tp topicPartition) (int32, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.leaders[tp]
	return l, ok
}

// moved records a leader hint from a NOT_LEADER_OR_FOLLOWER answer (-1: no
// hint) and marks the metadata stale either way: the hint may name a broker
// the client has not discovered yet.
func (m *metadata) moved(tp topicPartition, hint int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if hint >= 0 {
		m.leaders[tp] = hint
	} else {
		delete(m.leaders, tp)
	}
	m.stale = true
}

func (m *metadata) markStale() {
	m.mu.Lock()
	m.stale = true
	m.mu.Unlock()
}

func (m *metadata) isStale() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stale
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
