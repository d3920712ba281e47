package conformance_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/conformance"
	"github.com/sharechaos/sharechaos/workloads/shareconsumer"
)

// lateWriteImages are the Kafka images TestLateStateWrite runs, with the
// acknowledged offsets each must hand out again after the late write (nil:
// none). Kafka 4.3's share coordinator takes a write's start offset as
// given, so the late write's start offset 2 turns 5-9 (acknowledged, pruned
// by the write at 10) back into AVAILABLE records; 4.4 keeps the higher start
// offset (apache/kafka #23074), and so does our patched 4.3.1 since
// docs/FINDINGS.md 25.
var lateWriteImages = []struct {
	image       string
	redelivered []int64
	// required: a failure rather than a skip when the image is missing
	// under SHARECHAOS_REQUIRE_DOCKER=1 (`make images` builds it).
	required bool
}{
	{image: kip1289Image(), required: true},
	{image: docker.StockKIP1289KafkaImage, redelivered: []int64{5, 6, 7, 8, 9}, required: true},
	{image: docker.VersionImage("4.4.0")},
}

// TestLateStateWrite replays, on a single broker of each image, the late
// share-state write of docs/FINDINGS.md 25: a share-partition's acks of 0-9
// and then of 10-14 are written (the second write moves the stored start
// offset to 10 and prunes the batches below), then a WriteShareGroupState
// that carries start offset 2 and 2-4 ACKNOWLEDGED lands, as a write the
// persister resent after a lost answer does; the broker restarts, so the
// share-partition loads from the share coordinator, and a new member polls.
// It must get back exactly the image's redelivered offsets below 15: the
// stock 4.3.1 is the example that must fail (it proves the test sees a
// lowered start offset), the patched image must hold exactly once.
func TestLateStateWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts brokers")
	}
	for _, c := range lateWriteImages {
		t.Run(c.image, func(t *testing.T) {
			b, stop := startKafka(t, c.image, lateWriteRunID("test-late-write", c.image), 1, nil, c.required)
			defer stop()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			got, err := replayLateWrite(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.redelivered) {
				t.Fatalf("acknowledged offsets handed out again after the late write: %v, want %v", got, c.redelivered)
			}
			t.Logf("after a late write of start offset 2 over the stored 10, the acknowledged offsets handed out again: %v", got)
		})
	}
}

// replayLateWrite performs TestLateStateWrite's steps on b and returns the
// offsets below 15 the member after the restart was handed.
func replayLateWrite(ctx context.Context, b *docker.Cluster) ([]int64, error) {
	admin, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap()...))
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	prefix := fmt.Sprintf("late-write-%d", time.Now().UnixNano()%1_000_000)
	topo := ctp.Topology{Prefix: prefix, InputTopic: prefix + "-in", OutputTopic: prefix + "-out",
		LedgerTopic: prefix + "-ledger", Group: prefix + "-group", Partitions: 1, Replication: 1, MinISR: 1}
	if err := ctp.Setup(ctx, admin, topo, ctp.GroupConfig{Lock: conformance.LongLock}); err != nil {
		return nil, err
	}
	md, err := kadm.NewClient(admin).Metadata(ctx, topo.InputTopic)
	if err != nil {
		return nil, err
	}
	topicID := [16]byte(md.Topics[topo.InputTopic].ID)
	leaderEpoch := md.Topics[topo.InputTopic].Partitions[0].LeaderEpoch
	for i := range 15 {
		if err := admin.ProduceSync(ctx, &kgo.Record{Topic: topo.InputTopic, Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			return nil, fmt.Errorf("produce: %w", err)
		}
	}

	// Two writes of acks: 0-9 at start offset 0, then 10-14 at start offset
	// 10, which the share coordinator stores.
	m, err := shareconsumer.New(ctx, shareconsumer.Config{Bootstrap: b.Bootstrap(), Group: topo.Group,
		Topics: []string{topo.InputTopic}, MaxRecords: 50, MaxWait: 200 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	if err := acquire(ctx, m, 15); err != nil {
		return nil, err
	}
	for _, r := range [][2]int64{{0, 9}, {10, 14}} {
		results, err := m.Acknowledge(ctx, []shareconsumer.Ack{{Topic: topo.InputTopic, FirstOffset: r[0], LastOffset: r[1], Type: shareconsumer.Accept}})
		if err == nil && len(results) == 1 {
			err = results[0].Err
		}
		if err != nil {
			return nil, fmt.Errorf("acknowledge %d-%d: %w", r[0], r[1], err)
		}
	}
	_ = m.Close(ctx)
	state := shareState{cl: admin, group: topo.Group, topicID: topicID, leaderEpoch: leaderEpoch}
	var stored storedState
	if err := conformance.Eventually(ctx, 20*time.Second, func() error {
		stored, err = state.read(ctx)
		if err == nil && stored.startOffset != 10 {
			err = fmt.Errorf("stored start offset %d, want 10 after the acks of 10-14", stored.startOffset)
		}
		return err
	}); err != nil {
		return nil, err
	}

	// The late write, as the persister resends one of the same leader:
	// start offset 2, 2-4 ACKNOWLEDGED at delivery 1, the stored state epoch.
	if err := state.write(ctx, stored.stateEpoch, 2, 2, 4); err != nil {
		return nil, err
	}
	if err := b.Restart(ctx, b.Nodes()[0]); err != nil {
		return nil, fmt.Errorf("restart: %w", err)
	}
	// A marker record at 15 proves the member is being handed records.
	if err := admin.ProduceSync(ctx, &kgo.Record{Topic: topo.InputTopic, Value: []byte("15")}).FirstErr(); err != nil {
		return nil, fmt.Errorf("produce after the restart: %w", err)
	}
	again, err := shareconsumer.New(ctx, shareconsumer.Config{Bootstrap: b.Bootstrap(), Group: topo.Group,
		Topics: []string{topo.InputTopic}, MaxRecords: 50, MaxWait: 200 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	defer func() { _ = again.Close(context.Background()) }()
	var redelivered []int64
	sawMarker := false
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !sawMarker {
		recs, err := again.Poll(ctx)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		for _, r := range recs {
			if r.Offset == 15 {
				sawMarker = true
			} else if !slices.Contains(redelivered, r.Offset) {
				redelivered = append(redelivered, r.Offset)
			}
		}
	}
	if !sawMarker {
		return nil, fmt.Errorf("the member after the restart was not handed offset 15 within 30s (got %v)", redelivered)
	}
	slices.Sort(redelivered)
	return redelivered, nil
}

// acquire polls m until it holds n records.
func acquire(ctx context.Context, m *shareconsumer.Consumer, n int) error {
	got := map[int64]bool{}
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < n {
		if time.Now().After(deadline) {
			return fmt.Errorf("acquired %d of %d records within 20s", len(got), n)
		}
		recs, err := m.Poll(ctx)
		if err != nil && ctx.Err() != nil {
			return err
		}
		for _, r := range recs {
			got[r.Offset] = true
		}
	}
	return nil
}

// shareState speaks to the share coordinator of a group's share-partition 0
// of one topic, as a share-partition leader's persister does.
type shareState struct {
	cl      *kgo.Client
	group   string
	topicID [16]byte
	// leaderEpoch is the partition leader's epoch, which reads and writes
	// carry (Kafka 4.4 refuses a read without one; an epoch above the
	// leader's would fence it).
	leaderEpoch int32
}

// coordinator is the broker the share coordinator of the share-partition
// runs on (FindCoordinator, key type 2: group:topic id:partition).
func (s shareState) coordinator(ctx context.Context) (*kgo.Broker, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType = 2
	req.CoordinatorKeys = []string{kip1289.ShareCoordinatorKey(s.group, s.topicID, 0)}
	resp, err := req.RequestWith(ctx, s.cl)
	if err != nil {
		return nil, fmt.Errorf("find the share coordinator: %w", err)
	}
	if len(resp.Coordinators) != 1 {
		return nil, fmt.Errorf("find the share coordinator: %d answers", len(resp.Coordinators))
	}
	if err := kerr.ErrorForCode(resp.Coordinators[0].ErrorCode); err != nil {
		return nil, fmt.Errorf("find the share coordinator: %w", err)
	}
	return s.cl.Broker(int(resp.Coordinators[0].NodeID)), nil
}

// storedState is what ReadShareGroupState answers of the share-partition.
type storedState struct {
	startOffset int64
	stateEpoch  int32
}

// read is the stored state (ReadShareGroupState).
func (s shareState) read(ctx context.Context) (storedState, error) {
	br, err := s.coordinator(ctx)
	if err != nil {
		return storedState{}, err
	}
	req := kmsg.NewPtrReadShareGroupStateRequest()
	req.GroupID = s.group
	rt := kmsg.NewReadShareGroupStateRequestTopic()
	rt.TopicID = s.topicID
	rp := kmsg.NewReadShareGroupStateRequestTopicPartition()
	rp.LeaderEpoch = s.leaderEpoch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, br)
	if err != nil {
		return storedState{}, fmt.Errorf("ReadShareGroupState: %w", err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return storedState{}, fmt.Errorf("ReadShareGroupState: the answer %+v is not of one partition", resp.Topics)
	}
	p := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
		return storedState{}, fmt.Errorf("ReadShareGroupState: %w (%s)", err, message(p.ErrorMessage))
	}
	return storedState{startOffset: p.StartOffset, stateEpoch: p.StateEpoch}, nil
}

// write is a WriteShareGroupState at stateEpoch of start offset start with
// first-last ACKNOWLEDGED at delivery 1.
func (s shareState) write(ctx context.Context, stateEpoch int32, start, first, last int64) error {
	br, err := s.coordinator(ctx)
	if err != nil {
		return err
	}
	req := kmsg.NewPtrWriteShareGroupStateRequest()
	req.GroupID = s.group
	rt := kmsg.NewWriteShareGroupStateRequestTopic()
	rt.TopicID = s.topicID
	rp := kmsg.NewWriteShareGroupStateRequestTopicPartition()
	rp.StateEpoch, rp.LeaderEpoch, rp.StartOffset = stateEpoch, s.leaderEpoch, start
	batch := kmsg.NewWriteShareGroupStateRequestTopicPartitionStateBatch()
	batch.FirstOffset, batch.LastOffset, batch.DeliveryState, batch.DeliveryCount = first, last, 2, 1
	rp.StateBatches = append(rp.StateBatches, batch)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, br)
	if err != nil {
		return fmt.Errorf("WriteShareGroupState: %w", err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return fmt.Errorf("WriteShareGroupState: the answer %+v is not of one partition", resp.Topics)
	}
	if p := resp.Topics[0].Partitions[0]; p.ErrorCode != 0 {
		return fmt.Errorf("WriteShareGroupState (start offset %d): %w (%s)", start, kerr.ErrorForCode(p.ErrorCode), message(p.ErrorMessage))
	}
	return nil
}

// lateWriteRunID names a test's cluster apart from other checkouts' on the
// same engine.
func lateWriteRunID(base, image string) string {
	return fmt.Sprintf("%s-%s-%d", base, strings.NewReplacer("/", "-", ":", "-").Replace(image), os.Getpid())
}

// message is a response's error message, or "no message".
func message(m *string) string {
	if m == nil {
		return "no message"
	}
	return *m
}
