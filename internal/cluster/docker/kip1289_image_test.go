package docker

import (
	"context"
	"errors"
	"github.com/sharechaos/sharechaos/docker/images"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// TestKIP1289Image: Apache Kafka with KIP-1289 built in (docker/images/
// kafka-kip1289) advertises both RPCs under the configured keys, at the
// versions docs/KIP1289-ON-KAFKA.md gives them (AddShareAcksToTxn v0,
// TxnShareAcknowledge v1, routed to the share-partition leader), and serves
// AddShareAcksToTxn through Kafka's own request path: the input partition is
// enlisted in the transaction and an older producer epoch is fenced. The stock
// image of the same Kafka version advertises neither key. One single-broker
// cluster at a time.
func TestKIP1289Image(t *testing.T) {
	requireImages(t, KIP1289KafkaImage, StockKIP1289KafkaImage)
	keys := kip1289.DefaultAPIKeys()

	t.Run("patched", func(t *testing.T) {
		c := startCluster(t, Options{Brokers: 1, KafkaImage: KIP1289KafkaImage})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cl := kip1289Client(t, c, keys, kgo.TransactionalID("kip1289-image-test"))

		got := advertised(ctx, t, cl, keys)
		want := map[int16][2]int16{keys.AddShareAcksToTxn: {0, 0}, keys.TxnShareAcknowledge: {1, 1}}
		for key, versions := range want {
			if got[key] != versions {
				t.Errorf("%s: advertised versions %v, want %v", keys.Describe(key), got[key], versions)
			}
		}

		const topic = "kip1289-in"
		if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatalf("create topic: %v", err)
		}
		pid, epoch, err := cl.ProducerID(ctx)
		if err != nil {
			t.Fatalf("producer id: %v", err)
		}
		coord := txnCoordinator(ctx, t, cl, "kip1289-image-test")
		add := func(epoch int16) error {
			req := &wire.AddShareAcksToTxnRequest{APIKey: keys.AddShareAcksToTxn,
				TransactionalID: "kip1289-image-test", ProducerID: pid, ProducerEpoch: epoch, GroupID: "kip1289-group",
				Topics: []wire.AddShareAcksToTxnRequestTopic{{Topic: topic, Partitions: []int32{0}}}}
			resp, err := req.RequestWith(ctx, cl.Broker(int(coord)))
			if err != nil {
				return err
			}
			return kerr.ErrorForCode(resp.ErrorCode)
		}
		if err := add(epoch); err != nil {
			t.Fatalf("AddShareAcksToTxn at the current epoch: %v", err)
		}
		if enlisted := txnPartitions(ctx, t, cl, coord, "kip1289-image-test"); !slices.Equal(enlisted, []string{topic + "/0"}) {
			t.Errorf("partitions in the transaction = %v, want the input partition %s/0", enlisted, topic)
		}
		if err := add(epoch - 1); !errors.Is(err, kerr.ProducerFenced) {
			t.Errorf("AddShareAcksToTxn at an older epoch: %v, want PRODUCER_FENCED", err)
		}
	})

	t.Run("stock", func(t *testing.T) {
		c := startCluster(t, Options{Brokers: 1, KafkaImage: StockKIP1289KafkaImage})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cl := kip1289Client(t, c, keys)
		if got := advertised(ctx, t, cl, keys); len(got) != 0 {
			t.Errorf("stock Kafka %s advertises %v", images.KIP1289KafkaVersion, got)
		}
		s, err := kip1289.Negotiate(ctx, cl, keys)
		if err != nil {
			t.Fatal(err)
		}
		if s.Native || len(s.Missing) != 2 {
			t.Errorf("negotiation with stock Kafka = %+v, want both APIs missing", s)
		}
	})
}

// requireImages skips unless every image exists here.
func requireImages(t *testing.T, images ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no real Kafka cluster")
	}
	ctx := context.Background()
	eng, err := newEngine(ctx)
	if err != nil {
		t.Skipf("no Docker engine answers: %v", err)
	}
	defer eng.Close()
	for _, image := range images {
		if !eng.imageExists(ctx, image) {
			t.Skipf("image %s missing (build with: bash docker/build-images.sh)", image)
		}
	}
}

func kip1289Client(t *testing.T, c *Cluster, keys kip1289.APIKeys, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Bootstrap()...), keys.ClientOpt()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// advertised is what every broker's ApiVersions says of keys: key ->
// {min, max}, for the keys some broker lists. Brokers that disagree fail the
// test.
func advertised(ctx context.Context, t *testing.T, cl *kgo.Client, keys kip1289.APIKeys) map[int16][2]int16 {
	t.Helper()
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	out := make(map[int16][2]int16)
	for i, b := range meta.Brokers {
		req := kmsg.NewPtrApiVersionsRequest()
		req.ClientSoftwareName, req.ClientSoftwareVersion = "sharechaos", "test"
		resp, err := req.RequestWith(ctx, cl.Broker(int(b.NodeID)))
		if err != nil {
			t.Fatalf("api versions of broker %d: %v", b.NodeID, err)
		}
		this := make(map[int16][2]int16)
		for _, k := range resp.ApiKeys {
			if k.ApiKey == keys.AddShareAcksToTxn || k.ApiKey == keys.TxnShareAcknowledge {
				this[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
			}
		}
		if i > 0 && !maps.Equal(this, out) {
			t.Fatalf("broker %d advertises %v, another %v", b.NodeID, this, out)
		}
		out = this
	}
	return out
}

// txnCoordinator finds the transaction coordinator of id, waiting while the
// transaction state topic is still being created.
func txnCoordinator(ctx context.Context, t *testing.T, cl *kgo.Client, id string) int32 {
	t.Helper()
	for {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorType = 1
		req.CoordinatorKeys = []string{id}
		resp, err := req.RequestWith(ctx, cl)
		if err == nil && len(resp.Coordinators) == 1 {
			if err = kerr.ErrorForCode(resp.Coordinators[0].ErrorCode); err == nil {
				return resp.Coordinators[0].NodeID
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("find transaction coordinator of %s: %v (last: %v)", id, ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// txnPartitions are the partitions of id's ongoing transaction, as
// "topic/partition", sorted.
func txnPartitions(ctx context.Context, t *testing.T, cl *kgo.Client, coord int32, id string) []string {
	t.Helper()
	req := kmsg.NewPtrDescribeTransactionsRequest()
	req.TransactionalIDs = []string{id}
	resp, err := req.RequestWith(ctx, cl.Broker(int(coord)))
	if err != nil || len(resp.TransactionStates) != 1 {
		t.Fatalf("describe transaction %s: %v", id, err)
	}
	st := resp.TransactionStates[0]
	if err := kerr.ErrorForCode(st.ErrorCode); err != nil {
		t.Fatalf("describe transaction %s: %v", id, err)
	}
	var out []string
	for _, tp := range st.Topics {
		for _, p := range tp.Partitions {
			out = append(out, tp.Topic+"/"+strconv.Itoa(int(p)))
		}
	}
	slices.Sort(out)
	return out
}
