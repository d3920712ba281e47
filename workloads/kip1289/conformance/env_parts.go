package conformance

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
	"github.com/sharechaos/sharechaos/workloads/shareconsumer"
)

// The cases of one request's shapes (shapes.go) need more than the case's
// one input partition: several topics of several partitions, several share
// groups, a member of each, and requests that carry them all.

// SharePart is one input partition of the case (a share-partition of each
// of its groups).
type SharePart struct {
	Topic     string
	Partition int32
}

func (p SharePart) String() string { return p.Topic + "/" + strconv.Itoa(int(p.Partition)) }

// RecordRef is one record of one share-partition as one group sees it.
type RecordRef struct {
	Group  string
	Part   SharePart
	Offset int64
}

// PartAcks are the acknowledgement batches of one share-partition in a
// TxnShareAcknowledge.
type PartAcks struct {
	Part    SharePart
	Batches []wire.AcknowledgementBatch
}

func batch(first, last int64, t kip1289.AckType) wire.AcknowledgementBatch {
	return wire.AcknowledgementBatch{FirstOffset: first, LastOffset: last, AcknowledgeType: int8(t)}
}

// Inputs creates topics more input topics of partitions partitions each,
// replicated like the case's input, and returns their share-partitions in
// order (topic by topic).
//
// Every partition is led by one broker (the lowest node id, its replicas
// the next ones), so that one TxnShareAcknowledge can carry them all where
// it goes to the leader; where it goes to the share coordinator (v0) the
// coordinators are hashed, and a multi-broker cluster may spread them
// (AckParts then fails with ErrNotOneBroker).
func (e *Env) Inputs(ctx context.Context, topics, partitions int) ([]SharePart, error) {
	adm := kadm.NewClient(e.admin)
	brokers, err := adm.ListBrokers(ctx)
	if err != nil {
		return nil, fmt.Errorf("inputs of case %s: list brokers: %w", e.name, err)
	}
	nodes := brokers.NodeIDs()
	slices.Sort(nodes)
	rf := min(int(e.Broker.replication()), len(nodes))
	var parts []SharePart
	for k := range topics {
		name := fmt.Sprintf("%s-s%d", e.input, k)
		req := kmsg.NewPtrCreateTopicsRequest()
		req.TimeoutMillis = 30_000
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, -1, -1
		for p := range partitions {
			ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			ra.Partition, ra.Replicas = int32(p), nodes[:rf]
			rt.ReplicaAssignment = append(rt.ReplicaAssignment, ra)
		}
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, e.admin)
		if err == nil && len(resp.Topics) == 1 {
			err = kerr.ErrorForCode(resp.Topics[0].ErrorCode)
		}
		if err != nil {
			return nil, fmt.Errorf("create input %s: %w", name, err)
		}
		for p := range partitions {
			parts = append(parts, SharePart{Topic: name, Partition: int32(p)})
		}
	}
	names := uniqueTopics(parts)
	err = Eventually(ctx, 10*time.Second, func() error {
		md, err := adm.Metadata(ctx, names...)
		if err != nil {
			return err
		}
		for _, n := range names {
			t := md.Topics[n]
			if t.Err != nil || len(t.Partitions) != partitions {
				return fmt.Errorf("topic %s not ready: %v, %d partitions", n, t.Err, len(t.Partitions))
			}
			for _, p := range t.Partitions {
				if p.Leader < 0 {
					return fmt.Errorf("topic %s partition %d has no leader", n, p.Partition)
				}
			}
			e.ids[n] = [16]byte(t.ID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inputs of case %s: %w", e.name, err)
	}
	return parts, nil
}

func uniqueTopics(parts []SharePart) []string {
	var names []string
	for _, p := range parts {
		if !slices.Contains(names, p.Topic) {
			names = append(names, p.Topic)
		}
	}
	return names
}

// ProduceTo appends n plain records to one input partition and returns their
// offsets.
func (e *Env) ProduceTo(ctx context.Context, p SharePart, n int) ([]int64, error) {
	if e.partitioned == nil {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(e.Broker.Bootstrap...),
			kgo.RecordPartitioner(kgo.ManualPartitioner())}, e.Broker.ClientOpts...)...)
		if err != nil {
			return nil, err
		}
		e.partitioned = cl
		e.closers = append(e.closers, cl.Close)
	}
	var out []int64
	for i := range n {
		r := &kgo.Record{Topic: p.Topic, Partition: p.Partition, Value: []byte(e.name + "-" + strconv.Itoa(i))}
		if err := e.partitioned.ProduceSync(ctx, r).FirstErr(); err != nil {
			return nil, fmt.Errorf("produce to %s: %w", p, err)
		}
		out = append(out, r.Offset)
	}
	return out, nil
}

// ShareGroup is the case's g-th share group: the case's own for g 0, else a
// new one configured as the case's.
func (e *Env) ShareGroup(ctx context.Context, g int) (string, error) {
	if g == 0 {
		return e.group, nil
	}
	name := fmt.Sprintf("%s-%d", e.group, g)
	cfg := ctp.GroupConfig{}
	if e.Broker.LockPerGroup {
		cfg.Lock = e.Broker.Settings.Lock
	}
	if err := ctp.SetGroupConfigs(ctx, e.admin, name, cfg); err != nil {
		return "", fmt.Errorf("configure share group %s: %w", name, err)
	}
	return name, nil
}

// JoinGroup adds a member to group, subscribed to the topics of parts.
func (e *Env) JoinGroup(ctx context.Context, name, group string, parts []SharePart) (*Member, error) {
	c, err := shareconsumer.New(ctx, shareconsumer.Config{Bootstrap: e.Broker.Bootstrap, Group: group,
		Topics: uniqueTopics(parts), MaxRecords: 50, MaxWait: 200 * time.Millisecond, Spread: true, ClientOpts: e.Broker.ClientOpts})
	if err != nil {
		return nil, fmt.Errorf("member %s joins %s: %w", name, group, err)
	}
	e.closers = append(e.closers, func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Close(cctx)
	})
	return &Member{e: e, c: c, name: name}, nil
}

// AcquireAll polls until the member holds every one of offsets, or fails when
// within is over.
func (m *Member) AcquireAll(ctx context.Context, offsets map[SharePart][]int64, within time.Duration) error {
	_, err := m.AcquireAllThen(ctx, offsets, within, 0)
	return err
}

// AcquireAllThen polls until the member holds every one of offsets (or fails
// when within is over), then polls for then more, and returns every record
// it acquired: what the broker hands out beside the expected ones.
func (m *Member) AcquireAllThen(ctx context.Context, offsets map[SharePart][]int64, within, then time.Duration) ([]*shareconsumer.Record, error) {
	missing := map[RecordRef]bool{}
	for p, os := range offsets {
		for _, o := range os {
			missing[RecordRef{Part: p, Offset: o}] = true
		}
	}
	seen := map[RecordRef]bool{}
	var got []*shareconsumer.Record
	deadline := time.Now().Add(within)
	var settled time.Time // when the last expected record came
	var lastErr error
	for {
		recs, err := m.c.Poll(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return got, err
			}
			lastErr = err
		}
		for _, r := range recs {
			k := RecordRef{Part: SharePart{r.Topic, r.Partition}, Offset: r.Offset}
			if !seen[k] {
				seen[k] = true
				got = append(got, r)
			}
			delete(missing, k)
		}
		switch {
		case len(missing) == 0 && settled.IsZero():
			settled = time.Now()
		case len(missing) > 0 && time.Now().After(deadline):
			return got, fmt.Errorf("member %s did not acquire %v within %v (last poll error: %v)",
				m.name, slices.SortedFunc(maps.Keys(missing), compareRefs), within, lastErr)
		}
		if !settled.IsZero() && time.Since(settled) >= then {
			return got, nil
		}
	}
}

func compareRefs(a, b RecordRef) int {
	switch {
	case a.Part.Topic != b.Part.Topic:
		if a.Part.Topic < b.Part.Topic {
			return -1
		}
		return 1
	case a.Part.Partition != b.Part.Partition:
		return int(a.Part.Partition - b.Part.Partition)
	}
	return int(a.Offset - b.Offset)
}

// AckOne is a ShareAcknowledge of one record by this member (not
// transactional), with the broker's answer.
func (m *Member) AckOne(ctx context.Context, p SharePart, offset int64, t shareconsumer.AckType) error {
	results, err := m.c.Acknowledge(ctx, []shareconsumer.Ack{{Topic: p.Topic, Partition: p.Partition, FirstOffset: offset, LastOffset: offset, Type: t}})
	if len(results) == 1 {
		return results[0].Err
	}
	if err == nil {
		err = fmt.Errorf("acknowledge %s offset %d: %d results", p, offset, len(results))
	}
	return err
}

// checkPartsDrained: group gets done with every record of parts, the
// transaction's markers included (checkDrained, per topic).
func (e *Env) checkPartsDrained(ctx context.Context, group string, m *Member, parts []SharePart) error {
	for _, topic := range uniqueTopics(parts) {
		var o ctp.ShareOffsets
		err := Eventually(ctx, 10*time.Second, func() error {
			if _, err := m.PollFor(ctx, 300*time.Millisecond); err != nil {
				return err
			}
			var err error
			if o, err = ctp.ReadShareOffsets(ctx, e.admin, group, topic); err != nil {
				return err
			}
			if !ctp.Drained(o.Start, o.End) {
				return fmt.Errorf("share start %v (reported %v), end %v", o.Start, o.Reported, o.End)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s not drained by group %s: %w", topic, group, err)
		}
	}
	return nil
}

// EnlistParts sends one AddShareAcksToTxn of group for every share-partition
// of parts, as p.
func (t *Txn) EnlistParts(ctx context.Context, p producer, group string, parts []SharePart) error {
	return t.e.rpc.addShareAcksToTxnParts(ctx, p, group, parts)
}

// AckParts sends one TxnShareAcknowledge of group carrying every
// share-partition of acks, as p, with tags, and returns each one's answer.
// Every share-partition must be routed to one broker (one leader, or one
// share coordinator at v0).
func (t *Txn) AckParts(ctx context.Context, p producer, group string, acks []PartAcks, tags memberTags) (map[SharePart]error, error) {
	return t.e.rpc.txnShareAcknowledgeParts(ctx, p, group, t.e.ids, acks, tags)
}
