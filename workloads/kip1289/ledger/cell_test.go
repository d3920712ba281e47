package ledger

import (
	"context"
	"errors"
	"github.com/sharechaos/sharechaos/internal/clustertest"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289/internal/connhook"
	"github.com/sharechaos/sharechaos/workloads/kip1289/internal/logread"
)

// A cell on an in-process kfake: one input partition, one output topic, one
// ledger partition, one share group, and workers built from the same parts as
// the CTP loop's (a transactional producer, a share consumer, an Acker), each
// step driven by hand so that a test can interleave workers exactly.

const group = "g"

type cell struct {
	t     *testing.T
	seeds []string
	cl    *kgo.Client
	adm   *kadm.Client
}

func newCell(t *testing.T, inputs int) *cell {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "in", "out", "ledger"),
		kfake.BrokerConfigs(map[string]string{"share.record.lock.sweep.interval.ms": "100"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl := clustertest.Client(t, c.ListenAddrs())
	cell := &cell{t: t, seeds: c.ListenAddrs(), cl: cl, adm: kadm.NewClient(cl)}
	cell.setGroupConfig("share.auto.offset.reset", "earliest")
	for i := range inputs {
		id := ctp.InputID(i)
		if err := cl.ProduceSync(ctx(t), &kgo.Record{Topic: "in", Key: []byte(id), Value: []byte(ctp.Payload(id))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return cell
}

func (c *cell) setGroupConfig(name, value string) {
	c.t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = name, kmsg.StringPtr(value)
	res.Configs = append(res.Configs, cfg)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx(c.t), c.cl)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			c.t.Fatalf("set group config %s: %v", name, err)
		}
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

type worker struct {
	t        *testing.T
	c        *cell
	name     string
	seq      int64
	producer *kgo.Client
	pdial    *connhook.Dialer // the producer's connections
	consumer *kgo.Client
	cdial    *connhook.Dialer // the consumer's connections (close them to drop its share session)
	acker    *Acker

	// dropEndTxn makes the producer lose its EndTxn: dropResponse (the
	// commit happens, the answer is lost) or dropRequest (it never arrives).
	dropEndTxn atomic.Int32
}

const (
	dropNone int32 = iota
	dropResponse
	dropRequest
)

const keyEndTxn = 26

func (c *cell) worker(name string) *worker {
	c.t.Helper()
	w := &worker{t: c.t, c: c, name: name, cdial: &connhook.Dialer{}}
	w.pdial = &connhook.Dialer{Hooks: connhook.Hooks{
		Request: func(h connhook.Header, frame []byte) ([]byte, error) {
			if h.Key == keyEndTxn && w.dropEndTxn.Load() == dropRequest {
				return nil, errDropped
			}
			return frame, nil
		},
		Response: func(h connhook.Header, payload []byte) ([]byte, error) {
			if h.Key == keyEndTxn && w.dropEndTxn.Load() == dropResponse {
				return nil, errDropped
			}
			return payload, nil
		},
	}}
	w.newProducer()
	w.consumer = clustertest.Client(c.t, c.seeds, kgo.ClientID(name), kgo.Dialer(w.cdial.Dial),
		kgo.ShareGroup(group), kgo.ConsumeTopics("in"), kgo.ShareMaxRecords(10), kgo.ShareMaxRecordsStrict())
	var err error
	w.acker, err = New(ctx(c.t), Config{Topic: "ledger", Group: group, Seeds: c.seeds, Consumer: w.consumer,
		RenewInterval: 50 * time.Millisecond, FetchWait: 50 * time.Millisecond})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(w.acker.Close)
	return w
}

// newProducer (re)creates the worker's producer with its transactional id
// and registers it at once, as the loop does: a replacement fences its
// predecessor and aborts what it left open.
func (w *worker) newProducer() {
	w.t.Helper()
	if w.producer != nil {
		w.producer.Close()
	}
	w.producer = clustertest.Client(w.t, w.c.seeds, kgo.TransactionalID("tx-"+w.name), kgo.Dialer(w.pdial.Dial),
		kgo.DefaultProduceTopic("out"), kgo.TransactionTimeout(20*time.Second))
	if _, _, err := w.producer.ProducerID(ctx(w.t)); err != nil {
		w.t.Fatal(err)
	}
}

// poll polls until it holds n records.
func (w *worker) poll(n int) []*kgo.Record {
	w.t.Helper()
	c := ctx(w.t)
	var batch []*kgo.Record
	for len(batch) < n {
		pctx, cancel := context.WithTimeout(c, 500*time.Millisecond)
		fs := w.consumer.PollRecords(pctx, n-len(batch))
		cancel()
		if c.Err() != nil {
			w.t.Fatalf("%s: polled %d of %d records", w.name, len(batch), n)
		}
		batch = append(batch, fs.Records()...)
	}
	return batch
}

func (w *worker) txn() ctp.Txn {
	return ctp.Txn{Worker: w.name, Seq: w.seq, Producer: w.producer, Consumer: w.consumer}
}

// process begins a transaction and produces and flushes one output per input.
func (w *worker) process(batch []*kgo.Record) {
	w.t.Helper()
	w.seq++
	if err := w.producer.BeginTransaction(); err != nil {
		w.t.Fatal(err)
	}
	for _, r := range batch {
		out := &kgo.Record{Key: r.Key, Value: []byte(ctp.Transform(string(r.Value))), Headers: []kgo.RecordHeader{
			{Key: ctp.HeaderSrc, Value: []byte(ctp.Src(r.Topic, r.Partition, r.Offset))},
			{Key: ctp.HeaderWorker, Value: []byte(w.name)},
			{Key: ctp.HeaderTxn, Value: []byte(strconv.FormatInt(w.seq, 10))},
		}}
		if err := w.producer.ProduceSync(ctx(w.t), out).FirstErr(); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *worker) addAcks(batch []*kgo.Record) {
	w.t.Helper()
	if err := w.acker.AddAcks(ctx(w.t), w.txn(), batch); err != nil {
		w.t.Fatal(err)
	}
}

func (w *worker) validate(batch []*kgo.Record) []*kgo.Record {
	w.t.Helper()
	conflicts, err := w.acker.Validate(ctx(w.t), w.txn(), batch)
	if err != nil {
		w.t.Fatal(err)
	}
	return conflicts
}

func (w *worker) end(commit kgo.TransactionEndTry) {
	w.t.Helper()
	if err := w.producer.EndTransaction(ctx(w.t), commit); err != nil {
		w.t.Fatalf("%s: end transaction: %v", w.name, err)
	}
}

// ack marks and flushes; acks of records this worker no longer holds fail
// at the broker, which is fine: someone else holds them.
func (w *worker) ack(status kgo.AckStatus, rs []*kgo.Record) {
	if len(rs) == 0 {
		return
	}
	w.consumer.MarkAcks(status, rs...)
	_ = w.consumer.FlushAcks(ctx(w.t))
}

// outputs returns, per input src, the workers whose committed outputs hold it.
func (c *cell) outputs() map[string][]string {
	c.t.Helper()
	cl := c.cl
	end, err := logread.EndOffset(ctx(c.t), cl, "out", 0)
	if err != nil {
		c.t.Fatal(err)
	}
	got := make(map[string][]string)
	err = logread.New(cl, "out", 0, 0, 0).ReadTo(ctx(c.t), end, func(r *kgo.Record) error {
		var src, worker string
		for _, h := range r.Headers {
			switch h.Key {
			case ctp.HeaderSrc:
				src = string(h.Value)
			case ctp.HeaderWorker:
				worker = string(h.Value)
			}
		}
		got[src] = append(got[src], worker)
		return nil
	}, nil)
	if err != nil {
		c.t.Fatalf("read outputs: %v", err)
	}
	return got
}

// exactlyOnce checks that every input 0..n-1 has exactly one committed output,
// written by winner.
func (c *cell) exactlyOnce(n int, winner string) {
	c.t.Helper()
	got := c.outputs()
	for i := range n {
		src := ctp.Src("in", 0, int64(i))
		if ws := got[src]; len(ws) != 1 || ws[0] != winner {
			c.t.Errorf("%s: committed outputs by %v, want exactly one by %s", src, ws, winner)
		}
	}
	if len(got) != n {
		c.t.Errorf("outputs for %d inputs, want %d", len(got), n)
	}
}

// shareDone waits until the share group is done with every input (its start
// offset reached the end): no record is lost in the share group.
func (c *cell) shareDone(n int) {
	c.t.Helper()
	cx := ctx(c.t)
	for {
		d, err := c.adm.DescribeShareGroupOffsets(cx, group)
		if err == nil {
			if o, ok := d[group].Offsets["in"][0]; ok && o.StartOffset == int64(n) {
				return
			}
		}
		select {
		case <-cx.Done():
			c.t.Fatalf("share group never finished the %d inputs: %v %v", n, d, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitBlocked waits until w's acker has renewed twice while the call behind
// ch has not returned: proof that the call waits behind an open transaction
// (the acker renews only while a read makes no progress). A call that returns
// first fails the test at once.
func waitBlocked(t *testing.T, w *worker, ch <-chan result, what string) {
	t.Helper()
	cx := ctx(t)
	for w.acker.Stats().Renews < 2 {
		select {
		case r := <-ch:
			t.Fatalf("%s returned %v, %v while an earlier transaction was still open", what, srcs(r.recs), r.err)
		case <-cx.Done():
			t.Fatalf("%s: never waited (renews %d)", what, w.acker.Stats().Renews)
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case r := <-ch:
		t.Fatalf("%s returned %v, %v while an earlier transaction was still open", what, srcs(r.recs), r.err)
	default:
	}
}

type result struct {
	recs []*kgo.Record
	err  error
}

func async(f func() ([]*kgo.Record, error)) <-chan result {
	ch := make(chan result, 1)
	go func() {
		rs, err := f()
		ch <- result{rs, err}
	}()
	return ch
}

func srcs(rs []*kgo.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = ctp.Src(r.Topic, r.Partition, r.Offset)
	}
	slices.Sort(out)
	return out
}

func sameRecords(t *testing.T, what string, got, want []*kgo.Record) {
	t.Helper()
	if g, w := srcs(got), srcs(want); !slices.Equal(g, w) {
		t.Errorf("%s: %v, want %v", what, g, w)
	}
}

var errDropped = errors.New("connhook: dropped")
