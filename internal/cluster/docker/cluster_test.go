package docker

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/clustertest"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

// startCluster starts a real cluster for a test, or skips the test under
// -short (as dockertest.Start does) or when no Docker engine answers or the
// images are missing. Cleanup closes it and checks that nothing of the run
// is left.
func startCluster(t *testing.T, opts Options) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no real Kafka cluster")
	}
	ctx := context.Background()
	if ok, why := Available(ctx); !ok {
		t.Skipf("docker backend unavailable: %s", why)
	}
	if opts.RunID == "" {
		opts.RunID = "test-" + randomHex(3)
	}
	opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	// Keep the containers' logs of a test run for a look afterwards.
	if dir := os.Getenv("SHARECHAOS_TEST_LOGDIR"); dir != "" && opts.LogDir == "" {
		opts.LogDir = dir + "/" + opts.RunID
	}
	c, err := Start(ctx, opts)
	t.Cleanup(func() {
		if c == nil {
			return
		}
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
		assertRunGone(t, opts.RunID)
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Logf("cluster of %d broker(s) started in %v", opts.Brokers, c.StartTime().Round(time.Millisecond))
	return c
}

func assertRunGone(t *testing.T, runID string) {
	t.Helper()
	eng, err := newEngine(context.Background())
	if err != nil {
		t.Fatalf("engine: %v", err)
	}
	defer eng.Close()
	cs, nets, err := eng.labelled(context.Background(), LabelRun, runID)
	if err != nil {
		t.Fatalf("list run objects: %v", err)
	}
	vs, err := eng.volumesLabelled(context.Background(), LabelRun, runID)
	if err != nil {
		t.Fatalf("list run volumes: %v", err)
	}
	if len(cs)+len(nets)+len(vs) > 0 {
		t.Errorf("run %s left %d containers, %d networks and %d volumes behind", runID, len(cs), len(nets), len(vs))
	}
}

// TestCluster runs every capability on one 3-broker cluster, in an order
// where each step leaves the cluster healthy for the next: starting Kafka
// is the expensive part.
func TestCluster(t *testing.T) {
	c := startCluster(t, Options{Brokers: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cl := clustertest.Client(t, c.Bootstrap())
	adm := kadm.NewClient(cl)

	t.Run("bootstrap-is-proxies-only", func(t *testing.T) {
		m, err := adm.BrokerMetadata(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Brokers) != 3 {
			t.Fatalf("metadata lists %d brokers, want 3", len(m.Brokers))
		}
		for _, b := range m.Brokers {
			addr := fmt.Sprintf("%s:%d", b.Host, b.Port)
			if addr != c.Bootstrap()[b.NodeID-1] {
				t.Errorf("broker %d advertises %s, want its client proxy %s", b.NodeID, addr, c.Bootstrap()[b.NodeID-1])
			}
		}
	})

	t.Run("brokers-reach-only-toxiproxy", func(t *testing.T) {
		for i, ctr := range c.brokers {
			info, err := ctr.Inspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for name := range info.NetworkSettings.Networks {
				if name != c.networks[i] {
					t.Errorf("broker %d is on network %s too", i+1, name)
				}
			}
			net, err := c.eng.NetworkInspect(ctx, c.networks[i], client.NetworkInspectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !net.Network.Internal {
				t.Errorf("network %s of broker %d has a gateway", c.networks[i], i+1)
			}
		}
	})

	const topic = "txn-data"
	t.Run("transactions", func(t *testing.T) {
		mustCreateTopic(t, ctx, cl, topic, 3, 3, nil)
		producer := clustertest.Client(t, c.Bootstrap(), kgo.TransactionalID("test-txn"), kgo.DefaultProduceTopic(topic))
		produceTxn(t, ctx, producer, "committed", 30, kgo.TryCommit)
		produceTxn(t, ctx, producer, "aborted", 10, kgo.TryAbort)
		got := readCommitted(t, ctx, c, topic, 30)
		for _, v := range got {
			if strings.HasPrefix(v, "aborted") {
				t.Errorf("read_committed consumer saw aborted record %q", v)
			}
		}
	})

	t.Run("share-group", func(t *testing.T) {
		const group = "test-share"
		if err := c.SetGroupConfigs(ctx, group, map[string]string{
			"share.auto.offset.reset":       "earliest",
			"share.isolation.level":         "read_committed",
			"share.record.lock.duration.ms": "5000", // allowed because the brokers lowered the minimum
		}); err != nil {
			t.Fatalf("group configs: %v", err)
		}
		consumer := clustertest.Client(t, c.Bootstrap(), kgo.ShareGroup(group), kgo.ConsumeTopics(topic))
		seen := map[string]bool{}
		for len(seen) < 30 && ctx.Err() == nil {
			pollCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			consumer.PollFetches(pollCtx).EachRecord(func(r *kgo.Record) {
				if strings.HasPrefix(string(r.Value), "aborted") {
					t.Errorf("share consumer (read_committed) got aborted record %q", r.Value)
				}
				seen[string(r.Value)] = true
				r.Ack(kgo.AckAccept)
			})
			cancel()
		}
		if err := consumer.FlushAcks(ctx); err != nil {
			t.Errorf("flush acks: %v", err)
		}
		if len(seen) != 30 {
			t.Fatalf("share group consumed %d distinct records, want 30", len(seen))
		}
	})

	t.Run("roles", func(t *testing.T) {
		for _, q := range []struct {
			kind cluster.CoordKind
			key  string
		}{
			{cluster.CoordTransaction, "test-txn"},
			{cluster.CoordGroup, "test-share"},
			{cluster.CoordShareState, "test-share:" + topic + ":0"},
			{cluster.CoordLeader, topic + "/0"},
		} {
			node, err := c.Coordinator(ctx, q.kind, q.key)
			if err != nil || node < 1 || node > 3 {
				t.Errorf("Coordinator(%s, %s) = %d, %v", q.kind, q.key, node, err)
				continue
			}
			t.Logf("%s coordinator of %s: broker %d", q.kind, q.key, node)
		}
		// The share-state key by topic id (Kafka's form) finds the same broker.
		m, err := adm.Metadata(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		byName, _ := c.Coordinator(ctx, cluster.CoordShareState, "test-share:"+topic+":1")
		byID, err := c.Coordinator(ctx, cluster.CoordShareState, "test-share:"+topicIDString(m.Topics[topic].ID)+":1")
		if err != nil || byID != byName {
			t.Errorf("share-state coordinator by id = %d (%v), by name = %d", byID, err, byName)
		}
		if _, err := c.Coordinator(ctx, cluster.CoordShareState, "no-partition"); err == nil {
			t.Error("a malformed share-state key was accepted")
		}
	})

	t.Run("move-leader", func(t *testing.T) {
		for _, target := range []cluster.NodeID{1, 2, 3} {
			if err := c.MoveLeader(ctx, topic, 0, target); err != nil {
				t.Fatalf("move leader to %d: %v", target, err)
			}
			if got, err := c.Coordinator(ctx, cluster.CoordLeader, topic+"/0"); err != nil || got != target {
				t.Errorf("after MoveLeader(%d) the leader is %d (%v)", target, got, err)
			}
		}
	})

	t.Run("latency", func(t *testing.T) {
		if err := c.SetLatency(ctx, 300*time.Millisecond, 0); err != nil {
			t.Fatalf("set latency: %v", err)
		}
		// A fresh connection's request crosses the client link: at least one
		// delayed request and one delayed response.
		began := time.Now()
		if err := directRequest(ctx, c, 1, 10*time.Second); err != nil {
			t.Fatalf("request with latency: %v", err)
		}
		if took := time.Since(began); took < 600*time.Millisecond {
			t.Errorf("a request took %v with 300 ms latency each way: the proxies were bypassed", took)
		}
		if err := c.SetLatency(ctx, 0, 0); err != nil {
			t.Fatalf("remove latency: %v", err)
		}
	})

	t.Run("isolate-and-heal", func(t *testing.T) {
		mustCreateTopic(t, ctx, cl, "iso", 1, 3, nil)
		leader, err := c.Coordinator(ctx, cluster.CoordLeader, "iso/0")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Isolate(ctx, leader); err != nil {
			t.Fatalf("isolate %d: %v", leader, err)
		}
		t.Logf("isolated broker %d, the leader of iso/0", leader)
		// Clients lose it: a request to it through its proxy fails.
		if err := directRequest(ctx, c, leader, 3*time.Second); err == nil {
			t.Errorf("broker %d still answers clients while isolated", leader)
		}
		// The other brokers lose it too (its controller and inter-broker links
		// are cut): the quorum fences it and another replica takes over.
		began := time.Now()
		waitFor(t, ctx, time.Minute, "isolated broker fenced and leadership moved", func() error {
			m, err := adm.Metadata(ctx, "iso")
			if err != nil {
				return err
			}
			for _, b := range m.Brokers {
				if b.NodeID == int32(leader) {
					return fmt.Errorf("metadata still lists broker %d", leader)
				}
			}
			if l := m.Topics["iso"].Partitions[0].Leader; l == int32(leader) || l < 0 {
				return fmt.Errorf("leader of iso/0 is %d", l)
			}
			return nil
		})
		t.Logf("broker %d fenced and iso/0 failed over after %v", leader, time.Since(began).Round(time.Millisecond))
		producer := clustertest.Client(t, c.Bootstrap(), kgo.DefaultProduceTopic("iso"), kgo.RecordDeliveryTimeout(30*time.Second))
		if err := producer.ProduceSync(ctx, kgo.StringRecord("during isolation")).FirstErr(); err != nil {
			t.Errorf("produce to the new leader while %d is isolated: %v", leader, err)
		}

		if err := c.HealAll(ctx); err != nil {
			t.Fatalf("heal: %v", err)
		}
		began = time.Now()
		waitFor(t, ctx, time.Minute, "healed broker back", func() error { return c.answers(ctx, directClient(t, c, leader), leader) })
		t.Logf("broker %d back in the metadata %v after heal", leader, time.Since(began).Round(time.Millisecond))
	})

	t.Run("pause-resume", func(t *testing.T) {
		if err := c.Pause(ctx, 3); err != nil {
			t.Fatalf("pause: %v", err)
		}
		if err := directRequest(ctx, c, 3, 2*time.Second); err == nil {
			t.Error("a paused broker answered")
		}
		if err := c.Resume(ctx, 3); err != nil {
			t.Fatalf("resume: %v", err)
		}
		waitFor(t, ctx, time.Minute, "resumed broker answers", func() error { return directRequest(ctx, c, 3, 3*time.Second) })
	})

	t.Run("kill-restart-keeps-data", func(t *testing.T) {
		// One replica only, on the broker to kill: the records can come back
		// only from its own disk.
		const node = cluster.NodeID(2)
		mustCreateTopic(t, ctx, cl, "durable", 1, 1, map[int32][]int32{0: {int32(node)}})
		producer := clustertest.Client(t, c.Bootstrap(), kgo.DefaultProduceTopic("durable"))
		for i := range 20 {
			if err := producer.ProduceSync(ctx, kgo.StringRecord(fmt.Sprintf("d-%02d", i))).FirstErr(); err != nil {
				t.Fatalf("produce: %v", err)
			}
		}
		if err := c.Kill(ctx, node); err != nil {
			t.Fatalf("kill: %v", err)
		}
		if err := directRequest(ctx, c, node, 2*time.Second); err == nil {
			t.Error("a killed broker answered")
		}
		began := time.Now()
		if err := c.Restart(ctx, node); err != nil {
			t.Fatalf("restart: %v", err)
		}
		t.Logf("broker %d answered %v after restart", node, time.Since(began).Round(time.Millisecond))
		if got := readCommitted(t, ctx, c, "durable", 20); len(got) != 20 {
			t.Errorf("after kill -9 and restart %d of 20 records are left", len(got))
		}
	})

	t.Run("copy-logs", func(t *testing.T) {
		dir := t.TempDir()
		if err := c.CopyLogs(ctx, dir); err != nil {
			t.Fatalf("copy logs: %v", err)
		}
		b, err := os.ReadFile(dir + "/kafka-1.log")
		if err != nil || !strings.Contains(string(b), "Kafka Server started") {
			t.Errorf("kafka-1.log lacks the start line (err %v, %d bytes)", err, len(b))
		}
		if _, err := os.Stat(dir + "/toxiproxy.log"); err != nil {
			t.Error(err)
		}
	})
}

// TestSingleBroker: one broker is allowed (internal topics then
// unreplicated); restarts of a running and of a paused broker work, and
// Close removes a paused broker.
func TestSingleBroker(t *testing.T) {
	c := startCluster(t, Options{Brokers: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if got := c.Nodes(); len(got) != 1 || got[0] != 1 {
		t.Errorf("nodes = %v", got)
	}
	began := time.Now()
	if err := c.Restart(ctx, 1); err != nil {
		t.Fatalf("graceful restart of a running broker: %v", err)
	}
	t.Logf("graceful restart took %v", time.Since(began).Round(time.Millisecond))
	if err := c.Pause(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(ctx, 1); err != nil {
		t.Fatalf("kill a paused broker: %v", err)
	}
	if err := c.Restart(ctx, 1); err != nil {
		t.Fatalf("restart after kill: %v", err)
	}
	// Left paused: Close must remove it all the same.
	if err := c.Pause(ctx, 1); err != nil {
		t.Fatal(err)
	}
}

// TestCloseAfterFailedStart: brokers that cannot start leave a partial
// cluster, and Close removes all of it.
func TestCloseAfterFailedStart(t *testing.T) {
	ctx := context.Background()
	if ok, why := Available(ctx); !ok {
		t.Skipf("docker backend unavailable: %s", why)
	}
	runID := "test-fail-" + randomHex(3)
	c, err := Start(ctx, Options{
		Brokers: 1, RunID: runID, StartTimeout: 20 * time.Second,
		BrokerConfigs: map[string]string{"num.io.threads": "not-a-number"},
		LogDir:        t.TempDir(),
	})
	if err == nil {
		c.Close(ctx)
		t.Fatal("a broker with a broken config started")
	}
	if c == nil {
		t.Fatalf("no partial cluster returned with %v", err)
	}
	t.Logf("start failed as it must: %v", err)
	// As after a Ctrl-C: the caller's context is already cancelled.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Close(cancelled); err != nil {
		t.Errorf("close partial cluster: %v", err)
	}
	assertRunGone(t, runID)
}

func mustCreateTopic(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, partitions int32, rf int16, assignment map[int32][]int32) {
	t.Helper()
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic = topic
	rt.NumPartitions, rt.ReplicationFactor = partitions, rf
	for p, replicas := range assignment {
		a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		a.Partition, a.Replicas = p, replicas
		rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
	}
	if len(assignment) > 0 {
		rt.NumPartitions, rt.ReplicationFactor = -1, -1
	}
	if rf < 2 {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = "min.insync.replicas", kmsg.StringPtr("1")
		rt.Configs = append(rt.Configs, c)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

func produceTxn(t *testing.T, ctx context.Context, cl *kgo.Client, prefix string, n int, end kgo.TransactionEndTry) {
	t.Helper()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatalf("begin: %v", err)
	}
	for i := range n {
		cl.Produce(ctx, kgo.StringRecord(fmt.Sprintf("%s-%02d", prefix, i)), func(_ *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce: %v", err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if err := cl.EndTransaction(ctx, end); err != nil {
		t.Fatalf("end transaction: %v", err)
	}
}

// readCommitted reads a topic from the start with read_committed until it
// has want records (or a minute passed) and returns the values.
func readCommitted(t *testing.T, ctx context.Context, c *Cluster, topic string, want int) []string {
	t.Helper()
	cl := clustertest.Client(t, c.Bootstrap(), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var got []string
	for len(got) < want && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	if len(got) != want {
		t.Errorf("read %d records of %s, want %d", len(got), topic, want)
	}
	return got
}

// directClient is a client that knows only one broker's client proxy.
func directClient(t *testing.T, c *Cluster, node cluster.NodeID) *kgo.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()[node-1]), kgo.DialTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// directRequest sends ApiVersions to one broker through a new connection to
// its client proxy.
func directRequest(ctx context.Context, c *Cluster, node cluster.NodeID, timeout time.Duration) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()[node-1]), kgo.DialTimeout(timeout))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = cl.SeedBrokers()[0].Request(ctx, kmsg.NewPtrApiVersionsRequest())
	return err
}

func waitFor(t *testing.T, ctx context.Context, limit time.Duration, what string, cond func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	for {
		if last = cond(); last == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %v (last: %v)", what, limit, errors.Join(last, ctx.Err()))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// topicIDString renders an id the way Kafka prints it (base64url, no padding).
func topicIDString(id [16]byte) string { return base64.RawURLEncoding.EncodeToString(id[:]) }
