package shareconsumer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// testLock is the acquisition lock of the kfake clusters: long enough that a
// consumer never loses a batch it is acking, short enough to wait out.
const testLock = 3 * time.Second

// startKfake starts an in-process kfake cluster with share-group configs
// like the embedded backend's: broker-level lock duration (kfake ignores the
// group-level one) swept every 100ms.
func startKfake(t *testing.T, brokers int) []string {
	t.Helper()
	return startKfakeCluster(t, brokers).ListenAddrs()
}

func startKfakeCluster(t *testing.T, brokers int) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.BrokerConfigs(map[string]string{
		"group.share.record.lock.duration.ms": strconv.FormatInt(testLock.Milliseconds(), 10),
		"share.record.lock.sweep.interval.ms": "100",
		"group.share.delivery.count.limit":    "10",
	}))
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// fixture is one test's topic and share group on a cluster.
type fixture struct {
	bootstrap []string
	topic     string
	group     string
	admin     *kgo.Client
}

// newFixture creates the topic and sets the group's configs with
// IncrementalAlterConfigs, as the suite does (workloads/ctp.SetGroupConfigs):
// share.auto.offset.reset=earliest, share.isolation.level=read_committed.
func newFixture(t *testing.T, ctx context.Context, bootstrap []string, partitions int32, replication int16) *fixture {
	t.Helper()
	admin, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	name := strings.ReplaceAll(t.Name(), "/", "-") // subtests: topic names take no '/'
	f := &fixture{bootstrap: bootstrap, topic: "in-" + name, group: "g-" + name, admin: admin}
	resp, err := kadm.NewClient(admin).CreateTopic(ctx, partitions, replication, nil, f.topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	if err := ctp.SetGroupConfigs(ctx, admin, f.group, ctp.GroupConfig{Lock: testLock}); err != nil {
		t.Fatalf("set group configs: %v", err)
	}
	return f
}

// produce writes n records with values v-0000.. round-robin over the
// partitions, with the given extra producer options (compression).
func (f *fixture) produce(t *testing.T, ctx context.Context, from, n int, opts ...kgo.Opt) {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(f.bootstrap...), kgo.DefaultProduceTopic(f.topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rs := make([]*kgo.Record, n)
	for i := range rs {
		rs[i] = &kgo.Record{Key: []byte(value(from + i)), Value: []byte(value(from + i))}
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

func value(i int) string { return fmt.Sprintf("v-%04d", i) }

func (f *fixture) consumer(t *testing.T, ctx context.Context, maxRecords int32) *Consumer {
	t.Helper()
	c, err := New(ctx, Config{Bootstrap: f.bootstrap, Group: f.group, Topics: []string{f.topic}, MaxRecords: maxRecords})
	if err != nil {
		t.Fatalf("new consumer: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// waitDrained waits until the share group's start offset reached the end of
// every partition: every record was acknowledged.
func (f *fixture) waitDrained(t *testing.T, ctx context.Context) {
	f.waitDrainedWithin(t, ctx, 20*time.Second)
}

func (f *fixture) waitDrainedWithin(t *testing.T, ctx context.Context, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		start, end, err := ctp.ShareProgress(ctx, f.admin, f.group, f.topic)
		if err == nil && ctp.Drained(start, end) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("share group not drained: start %v end %v err %v", start, end, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ledger records deliveries by value across consumers.
type ledger struct {
	mu        sync.Mutex
	delivered map[string][]*Record
}

func newLedger() *ledger { return &ledger{delivered: map[string][]*Record{}} }

func (l *ledger) add(recs []*Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range recs {
		l.delivered[string(r.Value)] = append(l.delivered[string(r.Value)], r)
	}
}

func (l *ledger) distinct() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.delivered)
}

// pollUntil polls c, passing each batch to handle, until done says so.
func pollUntil(t *testing.T, ctx context.Context, c *Consumer, timeout time.Duration, handle func([]*Record) bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		recs, err := c.Poll(ctx)
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		if handle(recs) {
			return
		}
	}
	t.Fatalf("condition not met within %v", timeout)
}

func accept(t *testing.T, ctx context.Context, c *Consumer, recs []*Record) {
	t.Helper()
	if len(recs) == 0 {
		return
	}
	if _, err := c.Acknowledge(ctx, AckRecords(Accept, recs...)); err != nil {
		t.Fatalf("accept: %v", err)
	}
}
