package kafkatoxic

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const topic = "t"

// kafkaRig is an in-process kfake broker behind an in-process toxiproxy
// proxy. Clients dial only the proxy: kfake advertises its own address, and
// the dialer sends every connection to the proxy instead.
type kafkaRig struct {
	broker string // kfake's own address, for raw connections around the proxy
	server *toxiproxy.ApiServer
	proxy  *toxiproxy.Proxy
}

func newKafkaRig(t *testing.T) *kafkaRig {
	t.Helper()
	Register()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topic))
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(cluster.Close)
	r := &kafkaRig{broker: cluster.ListenAddrs()[0]}
	r.server = toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	r.proxy = toxiproxy.NewProxy(r.server, "broker-0", "127.0.0.1:0", r.broker)
	if err := r.proxy.Start(); err != nil {
		t.Fatalf("start proxy: %v", err)
	}
	t.Cleanup(r.proxy.Stop)
	return r
}

func (r *kafkaRig) client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	proxy := r.proxy.Listen
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, proxy)
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(proxy), kgo.Dialer(dial), kgo.DefaultProduceTopic(topic),
	}, opts...)...)
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func addToxic(t *testing.T, proxy *toxiproxy.Proxy, spec Spec) *Toxic {
	t.Helper()
	toxic, err := Add(proxy, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := Remove(ctx, proxy, spec.ToxicName()); err != nil {
			t.Error(err)
		}
	})
	return toxic
}

// stillBlocked fails the test if done delivers within a short while: the
// held request must not complete before the release. (A request that is not
// held completes in well under a millisecond here.)
func stillBlocked(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s completed while held (err %v)", what, err)
	case <-time.After(300 * time.Millisecond):
	}
}

func wait(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("%s did not complete after the release", what)
	}
}

func TestHoldEndTxnUntilReleased(t *testing.T) {
	r := newKafkaRig(t)
	ctx := testContext(t)
	cl := r.client(t, kgo.TransactionalID("hold-endtxn"))
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, kgo.StringRecord("a")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	toxic := addToxic(t, r.proxy, Spec{Action: ActionHold, APIKey: 26, Nth: 1})

	done := make(chan error, 1)
	go func() { done <- cl.EndTransaction(ctx, kgo.TryCommit) }()
	if err := toxic.WaitFired(ctx); err != nil {
		t.Fatal(err)
	}
	stillBlocked(t, done, "EndTxn")
	if s := toxic.Status(); s.Holding != 1 || s.HeldBytes == 0 || s.Fired != 1 || s.FirstFiredAt == nil {
		t.Fatalf("status while holding: %+v", s)
	}
	toxic.Release()
	wait(t, done, "EndTxn")

	// The commit went through: a read_committed consumer sees the record.
	consumer := r.client(t, kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	fetches := consumer.PollRecords(ctx, 1)
	if recs := fetches.Records(); len(recs) != 1 || string(recs[0].Value) != "a" {
		t.Fatalf("read_committed after the release: %v, %v", recs, fetches.Err0())
	}
}

func TestHoldProduceUntilRemoved(t *testing.T) {
	r := newKafkaRig(t)
	ctx := testContext(t)
	cl := r.client(t)
	// The connection is open before the toxic comes, as the links between
	// brokers are in case 4.
	if err := cl.ProduceSync(ctx, kgo.StringRecord("warm")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Action: ActionHold, APIKey: 0, Nth: 1}
	toxic, err := Add(r.proxy, spec)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cl.ProduceSync(ctx, kgo.StringRecord("held")).FirstErr() }()
	if err := toxic.WaitFired(ctx); err != nil {
		t.Fatal(err)
	}
	stillBlocked(t, done, "Produce")
	if err := Remove(ctx, r.proxy, spec.ToxicName()); err != nil {
		t.Fatal(err)
	}
	wait(t, done, "Produce")
	if _, ok := Lookup(r.proxy, spec.ToxicName()); ok {
		t.Error("the toxic is still there after Remove")
	}
}

// apiVersionsFrame is an ApiVersions v0 request, which every broker answers.
func apiVersionsFrame(corr int32) []byte {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 0
	return kmsg.NewRequestFormatter(kmsg.FormatterClientID("kafkatoxic-test")).AppendRequest(nil, req, corr)
}

func readCorrelationID(conn net.Conn) (int32, error) {
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return 0, err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return 0, err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(conn, body); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(body)), nil
}

func TestDropSwallowsTheRequestAndKeepsTheConnection(t *testing.T) {
	r := newKafkaRig(t)
	toxic := addToxic(t, r.proxy, Spec{Action: ActionDrop, APIKey: 18, Nth: 1})
	conn, err := net.Dial("tcp", r.proxy.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Two requests in one write: the first is dropped, the second answered.
	if _, err := conn.Write(append(apiVersionsFrame(1), apiVersionsFrame(2)...)); err != nil {
		t.Fatal(err)
	}
	if corr, err := readCorrelationID(conn); err != nil || corr != 2 {
		t.Fatalf("first response: correlation id %d, %v; want 2 (1 was dropped)", corr, err)
	}
	// The connection is still up.
	if _, err := conn.Write(apiVersionsFrame(3)); err != nil {
		t.Fatal(err)
	}
	if corr, err := readCorrelationID(conn); err != nil || corr != 3 {
		t.Fatalf("next response: correlation id %d, %v; want 3", corr, err)
	}
	if s := toxic.Status(); s.Matched != 3 || s.Fired != 1 {
		t.Errorf("status: %+v", s)
	}
}

func TestResetMakesTheClientSeeAConnectionError(t *testing.T) {
	r := newKafkaRig(t)
	ctx := testContext(t)
	t.Run("raw", func(t *testing.T) {
		toxic := addToxic(t, r.proxy, Spec{Name: "reset-raw", Action: ActionReset, APIKey: 18, Nth: 1})
		conn, err := net.Dial("tcp", r.proxy.Listen)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Write(apiVersionsFrame(1)); err != nil {
			t.Fatal(err)
		}
		if _, err := readCorrelationID(conn); !errors.Is(err, io.EOF) {
			t.Fatalf("read after the reset: %v, want EOF", err)
		}
		if s := toxic.Status(); s.Fired != 1 {
			t.Errorf("status: %+v", s)
		}
	})
	t.Run("kgo", func(t *testing.T) {
		// DescribeConfigs (32): a request kgo sends only when asked.
		toxic := addToxic(t, r.proxy, Spec{Name: "reset-kgo", Action: ActionReset, APIKey: 32})
		cl := r.client(t, kgo.RequestRetries(0))
		req := kmsg.NewPtrDescribeConfigsRequest()
		res := kmsg.NewDescribeConfigsRequestResource()
		res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, topic
		req.Resources = append(req.Resources, res)
		_, err := cl.Request(ctx, req)
		var kafkaErr *kerr.Error
		if err == nil || errors.As(err, &kafkaErr) {
			t.Fatalf("DescribeConfigs through the reset: %v, want a connection error", err)
		}
		t.Logf("the client saw: %v", err)
		if s := toxic.Status(); s.Fired < 1 {
			t.Errorf("status: %+v", s)
		}
	})
}

func TestDelayAddsAtLeastTheDelay(t *testing.T) {
	const delay = 400 * time.Millisecond
	r := newKafkaRig(t)
	ctx := testContext(t)
	cl := r.client(t)
	if err := cl.ProduceSync(ctx, kgo.StringRecord("warm")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	toxic := addToxic(t, r.proxy, Spec{Action: ActionDelay, APIKey: 0, Nth: 1, Delay: delay})
	start := time.Now()
	if err := cl.ProduceSync(ctx, kgo.StringRecord("late")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took < delay {
		t.Errorf("the delayed produce took %v, want at least %v", took, delay)
	}
	t.Logf("delayed produce: %v (delay %v)", took, delay)
	if s := toxic.Status(); s.Fired != 1 || s.Holding != 0 {
		t.Errorf("status: %+v", s)
	}
}

func TestCapturedEndTxnReplayedLate(t *testing.T) {
	r := newKafkaRig(t)
	ctx := testContext(t)
	toxic := addToxic(t, r.proxy, Spec{Action: ActionCapture, APIKey: 26})
	cl := r.client(t, kgo.TransactionalID("late-endtxn"))
	begin := func(value string) {
		t.Helper()
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, kgo.StringRecord(value)).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(value string) {
		t.Helper()
		begin(value)
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
	}
	commit("first")

	caps := toxic.Captures()
	if len(caps) != 1 {
		t.Fatalf("%d captures, want 1", len(caps))
	}
	captured := kmsg.NewPtrEndTxnRequest()
	if _, err := DecodeRequest(caps[0].Frame, captured); err != nil {
		t.Fatal(err)
	}
	if captured.TransactionalID != "late-endtxn" || !captured.Commit {
		t.Fatalf("captured EndTxn: %+v", captured)
	}
	t.Logf("captured EndTxn v%d: producer %d epoch %d commit", captured.Version, captured.ProducerID, captured.ProducerEpoch)

	replay := func() *kmsg.EndTxnResponse {
		t.Helper()
		reply, err := Replay(ctx, r.broker, caps[0].Frame)
		if err != nil {
			t.Fatal(err)
		}
		resp, ok := reply.Response.(*kmsg.EndTxnResponse)
		if !ok {
			t.Fatalf("reply decoded as %T", reply.Response)
		}
		return resp
	}
	// Right after its own commit, the same EndTxn is a retry (KIP-890: the
	// epoch is one behind and the last end was a commit): accepted.
	if resp := replay(); resp.ErrorCode != 0 {
		t.Errorf("replay right after the commit: %v, want no error (a retry)", kerr.ErrorForCode(resp.ErrorCode))
	}
	// Once a newer transaction began, or ended, it is a zombie's: fenced
	// by epoch.
	fenced := func(when string) {
		t.Helper()
		resp := replay()
		if err := kerr.ErrorForCode(resp.ErrorCode); !errors.Is(err, kerr.ProducerFenced) {
			t.Errorf("replay %s: %v, want %v", when, err, kerr.ProducerFenced)
		}
		t.Logf("replay %s: %v", when, kerr.ErrorForCode(resp.ErrorCode))
	}
	begin("second")
	fenced("while a newer transaction is open")
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	fenced("after a newer transaction committed")
	if s := toxic.Status(); s.Fired != 2 || len(s.Captures) != 2 {
		t.Errorf("status: %d fired, %d captures, want 2 and 2", s.Fired, len(s.Captures))
	}
}

func TestHeldRequestOfAClosedSenderNeverArrives(t *testing.T) {
	r := newKafkaRig(t)
	ctx := testContext(t)
	cl := r.client(t)
	if err := cl.ProduceSync(ctx, kgo.StringRecord("warm")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	toxic := addToxic(t, r.proxy, Spec{Action: ActionHold, APIKey: 0})
	done := make(chan error, 1)
	go func() { done <- cl.ProduceSync(ctx, kgo.StringRecord("held")).FirstErr() }()
	if err := toxic.WaitFired(ctx); err != nil {
		t.Fatal(err)
	}
	cl.Close() // the sender goes away with its request held
	if err := <-done; err == nil {
		t.Fatal("the held produce succeeded after its client closed")
	}
	waitStatus(t, toxic, "the held bytes discarded", func(s Status) bool { return s.DiscardedBytes > 0 && s.Holding == 0 })
	toxic.Release()

	// Only the first record is in the log.
	check := r.client(t)
	req := kmsg.NewPtrListOffsetsRequest()
	tp := kmsg.NewListOffsetsRequestTopic()
	tp.Topic = topic
	part := kmsg.NewListOffsetsRequestTopicPartition()
	part.Timestamp = -1 // the end offset
	tp.Partitions = append(tp.Partitions, part)
	req.Topics = append(req.Topics, tp)
	resp, err := check.Request(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if end := resp.(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0].Offset; end != 1 {
		t.Errorf("end offset %d, want 1: the held produce reached the broker", end)
	}
}
