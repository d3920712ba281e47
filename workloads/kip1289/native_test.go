package kip1289

import (
	"context"
	"errors"
	"github.com/sharechaos/sharechaos/internal/clustertest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289/internal/logread"
	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

func newCluster(t *testing.T, brokers int) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.SeedTopics(2, "in", "out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

var group = ShareGroupMetadata{GroupID: "g", MemberID: "m", GenerationID: 1}

// kfake does not advertise KIP-1289. Negotiation must say so from
// ApiVersions alone: a request with an unknown key would crash kfake, so the
// test also shows that nothing new was sent (kfake still answers after).
func TestNegotiateOnBrokerWithoutKIP1289(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	seeds := newCluster(t, 3)
	cl := clustertest.Client(t, seeds)
	s, err := Negotiate(ctx, cl, APIKeys{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"AddShareAcksToTxn (key 12890)", "TxnShareAcknowledge (key 12891)"}
	if s.Native || s.Brokers != 3 || !reflect.DeepEqual(s.Missing, want) {
		t.Fatalf("support %+v, want not native on 3 brokers, missing %v", s, want)
	}
	_, err = Resolve(Choice(RealizationNative), OnUnsupportedFail, s)
	if err == nil || !strings.Contains(err.Error(), want[0]) || !strings.Contains(err.Error(), want[1]) {
		t.Errorf("resolve native: %v, want an error naming %v", err, want)
	}
	d, err := Resolve(Choice(RealizationNative), OnUnsupportedFallback, s)
	if err != nil || d.Mode != ctp.Explicit || d.Warning == "" {
		t.Errorf("resolve native with fallback: %+v, %v", d, err)
	}
	d, err = Resolve(ChoiceAuto, "", s)
	if err != nil || d.Realization != RealizationLedger {
		t.Errorf("resolve auto: %+v, %v", d, err)
	}
}

// SendShareAcksToTransaction on a broker without the RPCs refuses before
// sending anything new, and the transaction is still usable.
func TestSendShareAcksRefusedOnBrokerWithoutKIP1289(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	seeds := newCluster(t, 1)
	keys := DefaultAPIKeys()
	producer := clustertest.Client(t, seeds, kgo.TransactionalID("t-unsupported"), keys.ClientOpt(), kgo.DefaultProduceTopic("out"))
	beginWithRecord(ctx, t, producer, "v")
	acks, _ := FromRecords(recs("in", 0, 1, 2), AckAccept)
	err := SendShareAcksToTransaction(ctx, producer, acks, group)
	var ue *UnsupportedError
	if !errors.As(err, &ue) || len(ue.Missing) != 2 {
		t.Fatalf("send: %v, want UnsupportedError naming both APIs", err)
	}
	if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatalf("commit after the refusal: %v", err)
	}
}

type emulated struct {
	em    *emulator
	seeds []string
	keys  APIKeys
}

func newEmulated(t *testing.T) emulated {
	keys := APIKeys{AddShareAcksToTxn: 20001, TxnShareAcknowledge: 20002} // configured, not the defaults
	return emulated{em: newEmulator(keys), seeds: newCluster(t, 3), keys: keys}
}

func (e emulated) producer(t *testing.T, txnID string) *kgo.Client {
	return clustertest.Client(t, e.seeds, kgo.TransactionalID(txnID), kgo.Dialer(e.em.dial), e.keys.ClientOpt(),
		kgo.DefaultProduceTopic("out"), kgo.TransactionTimeout(10*time.Second))
}

func TestNegotiateOnEmulatedKIP1289Broker(t *testing.T) {
	e := newEmulated(t)
	cl := clustertest.Client(t, e.seeds, kgo.Dialer(e.em.dial))
	s, err := Negotiate(clustertest.Context(t, 30*time.Second), cl, e.keys)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Native || len(s.Missing) != 0 || s.Brokers != 3 {
		t.Errorf("support %+v, want native on 3 brokers", s)
	}
	if s.Blocked != nil {
		t.Errorf("the loop runs native on our share consumer: Support.Blocked = %v, want nil", s.Blocked)
	}
	// The default keys are not what this broker advertises.
	s, err = Negotiate(clustertest.Context(t, 30*time.Second), cl, APIKeys{})
	if err != nil || s.Native {
		t.Errorf("default keys on a broker advertising others: %+v, %v", s, err)
	}
}

func TestSendShareAcksToTransaction(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	producer := e.producer(t, "t-send")
	sender, err := NewSender(producer, e.keys)
	if err != nil {
		t.Fatal(err)
	}
	beginWithRecord(ctx, t, producer, "out-1")
	in := append(recs("in", 0, 4, 5, 6, 8), recs("in", 1, 3)...)
	acks, _ := FromRecords(in, AckAccept)
	if err := sender.SendShareAcksToTransaction(ctx, acks, group); err != nil {
		t.Fatal(err)
	}
	id, epoch, _ := producer.ProducerID(ctx)
	if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatalf("commit: %v", err)
	}

	adds, acked := e.em.seen()
	if len(adds) != 1 {
		t.Fatalf("emulator saw %d AddShareAcksToTxn, want 1", len(adds))
	}
	wantAdd := wire.AddShareAcksToTxnRequest{APIKey: 0, TransactionalID: "t-send", ProducerID: id, ProducerEpoch: epoch, GroupID: "g",
		Topics: []wire.AddShareAcksToTxnRequestTopic{{Topic: "in", Partitions: []int32{0, 1}}}}
	if got := adds[0]; !reflect.DeepEqual(got, wantAdd) {
		t.Errorf("AddShareAcksToTxn\n got %+v\nwant %+v", got, wantAdd)
	}
	// One TxnShareAcknowledge per share coordinator: on three brokers the two
	// share-partitions may live on two.
	var parts []wire.TxnShareAcknowledgeRequestPartition
	for _, ack := range acked {
		if ack.GroupID != "g" || ack.TransactionalID != "t-send" || ack.ProducerID != id || ack.ProducerEpoch != epoch || len(ack.Topics) != 1 {
			t.Fatalf("TxnShareAcknowledge %+v", ack)
		}
		if ack.Topics[0].TopicID == ([16]byte{}) {
			t.Error("TxnShareAcknowledge without topic id")
		}
		parts = append(parts, ack.Topics[0].Partitions...)
	}
	slices.SortFunc(parts, func(a, b wire.TxnShareAcknowledgeRequestPartition) int { return int(a.Partition - b.Partition) })
	wantParts := []wire.TxnShareAcknowledgeRequestPartition{
		{Partition: 0, AcknowledgementBatches: []wire.AcknowledgementBatch{{FirstOffset: 4, LastOffset: 6, AcknowledgeType: 1}, {FirstOffset: 8, LastOffset: 8, AcknowledgeType: 1}}},
		{Partition: 1, AcknowledgementBatches: []wire.AcknowledgementBatch{{FirstOffset: 3, LastOffset: 3, AcknowledgeType: 1}}},
	}
	if !reflect.DeepEqual(parts, wantParts) {
		t.Errorf("batches\n got %+v\nwant %+v", parts, wantParts)
	}
	checkCommitted(t, e.seeds, []string{"out-1"})

	// The next transaction runs under the epoch the commit bumped (KIP-890).
	beginWithRecord(ctx, t, producer, "out-2")
	if err := sender.SendShareAcksToTransaction(ctx, acks, group); err != nil {
		t.Fatal(err)
	}
	_, epoch2, _ := producer.ProducerID(ctx)
	if err := producer.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	adds, _ = e.em.seen()
	if len(adds) != 2 || adds[1].ProducerEpoch != epoch2 || epoch2 <= epoch {
		t.Errorf("second transaction: epochs %d then %d, request carried %+v", epoch, epoch2, adds[len(adds)-1])
	}
	checkCommitted(t, e.seeds, []string{"out-1"})
}

func TestSendShareAcksOutsideTransaction(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	producer := e.producer(t, "t-outside")
	acks, _ := FromRecords(recs("in", 0, 1), AckAccept)

	err := SendShareAcksToTransaction(ctx, producer, acks, group, WithAPIKeys(e.keys))
	if !errors.Is(err, ErrNoTransaction) {
		t.Fatalf("no transaction begun: %v, want ErrNoTransaction", err)
	}
	// Begun, nothing produced: kgo would end it without telling the
	// coordinator, so the acks would hang pending.
	if err := producer.BeginTransaction(); err != nil {
		t.Fatalf("the probe left kgo in a transaction: %v", err)
	}
	err = SendShareAcksToTransaction(ctx, producer, acks, group, WithAPIKeys(e.keys))
	if !errors.Is(err, ErrNothingProduced) {
		t.Fatalf("nothing produced: %v, want ErrNothingProduced", err)
	}
	if adds, acked := e.em.seen(); len(adds)+len(acked) != 0 {
		t.Errorf("refused sends still reached the broker: %d + %d requests", len(adds), len(acked))
	}
	if err := producer.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSender(clustertest.Client(t, e.seeds, e.keys.ClientOpt()), e.keys); !errors.Is(err, ErrNotTransactional) {
		t.Errorf("non-transactional producer: %v", err)
	}
	if _, err := NewSender(clustertest.Client(t, e.seeds, kgo.TransactionalID("x")), e.keys); err == nil {
		t.Error("a producer without the keys in its max versions was accepted")
	}
}

// A producer fenced by a newer one with the same transactional id learns it
// when it sends acks: errors.Is(err, kerr.ProducerFenced).
func TestSendShareAcksFenced(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	old := e.producer(t, "t-fenced")
	beginWithRecord(ctx, t, old, "zombie")
	replacement := e.producer(t, "t-fenced")
	if _, _, err := replacement.ProducerID(ctx); err != nil {
		t.Fatal(err)
	}
	acks, _ := FromRecords(recs("in", 0, 1), AckAccept)
	err := SendShareAcksToTransaction(ctx, old, acks, group, WithAPIKeys(e.keys))
	if !ctp.Fenced(err) || !errors.Is(err, kerr.ProducerFenced) {
		t.Fatalf("send from a fenced producer: %v, want fenced", err)
	}
	checkCommitted(t, e.seeds, nil)
}

func TestTransactionalShareAcknowledger(t *testing.T) {
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	cl := clustertest.Client(t, e.seeds, kgo.Dialer(e.em.dial), e.keys.ClientOpt())
	a, err := NewTransactionalShareAcknowledger(AcknowledgerConfig{Client: cl, TransactionalID: "t-acker", Keys: e.keys,
		TransactionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	acks, _ := FromRecords(recs("in", 1, 10, 11), AckAccept)
	if err := a.CommitAcknowledgements(ctx, acks, group); !errors.Is(err, ErrNoTransaction) {
		t.Errorf("commit before init: %v", err)
	}
	if err := a.InitTransactions(ctx); err != nil {
		t.Fatal(err)
	}
	_, epoch0 := a.ProducerID()
	for range 2 {
		if err := a.CommitAcknowledgements(ctx, acks, group); err != nil {
			t.Fatal(err)
		}
	}
	adds, acked := e.em.seen()
	if len(adds) != 2 || len(acked) != 2 {
		t.Fatalf("saw %d adds, %d acks, want 2 each", len(adds), len(acked))
	}
	if adds[0].ProducerEpoch != epoch0 || adds[1].ProducerEpoch <= epoch0 {
		t.Errorf("epochs %d then %d: the second commit must run at the epoch EndTxn bumped", adds[0].ProducerEpoch, adds[1].ProducerEpoch)
	}

	// A share-partition refuses: the commit fails, the transaction stays open
	// until AbortAcknowledgements, and the acknowledger works on.
	e.em.failPartition(1, kerr.InvalidRecordState.Code)
	err = a.CommitAcknowledgements(ctx, acks, group)
	var pe PartitionErrors
	if !errors.As(err, &pe) || !errors.Is(err, kerr.InvalidRecordState) {
		t.Fatalf("refused partition: %v", err)
	}
	if err := a.CommitAcknowledgements(ctx, acks, group); err == nil {
		t.Error("commit with a failed transaction still open: no error")
	}
	if err := a.AbortAcknowledgements(ctx); err != nil {
		t.Fatal(err)
	}
	e.em.failPartition(1, 0)
	if err := a.CommitAcknowledgements(ctx, acks, group); err != nil {
		t.Fatalf("commit after abort: %v", err)
	}

	// A second acknowledger with the same id fences the first.
	b, _ := NewTransactionalShareAcknowledger(AcknowledgerConfig{Client: cl, TransactionalID: "t-acker", Keys: e.keys})
	if err := b.InitTransactions(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.CommitAcknowledgements(ctx, acks, group); !ctp.Fenced(err) {
		t.Fatalf("fenced acknowledger: %v", err)
	}
	if err := a.CommitAcknowledgements(ctx, acks, group); !ctp.Fenced(err) {
		t.Errorf("a fenced acknowledger stays fenced: %v", err)
	}
	if err := b.CommitAcknowledgements(ctx, acks, group); err != nil {
		t.Errorf("the new acknowledger: %v", err)
	}
}

// The native realization refuses to run on kgo's share consumer, and when a
// test vouches for the consumer, AddAcks sends the batch's ACCEPTs.
func TestNativeAcker(t *testing.T) {
	if _, err := NewNativeAcker(NativeConfig{Metadata: func(context.Context) (ShareGroupMetadata, error) { return group, nil }}); err == nil ||
		!strings.Contains(err.Error(), "ACCEPTs, on the next poll") {
		t.Fatalf("native acker on kgo's share consumer: %v, want a refusal that says why", err)
	}
	ctx := clustertest.Context(t, 30*time.Second)
	e := newEmulated(t)
	acker, err := NewNativeAcker(NativeConfig{Keys: e.keys, ConsumerLeavesAcks: true,
		Metadata: func(context.Context) (ShareGroupMetadata, error) { return group, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer acker.Close()
	producer := e.producer(t, "t-native")
	batch := recs("in", 0, 1, 2, 3)
	if done, err := acker.PreCheck(ctx, batch); err != nil || len(done) != 0 {
		t.Fatalf("pre-check: %v %v", done, err)
	}
	beginWithRecord(ctx, t, producer, "o")
	txn := ctp.Txn{Worker: "w0.0", Seq: 1, Producer: producer}
	if err := acker.AddAcks(ctx, txn, batch); err != nil {
		t.Fatal(err)
	}
	if c, err := acker.Validate(ctx, txn, batch); err != nil || len(c) != 0 {
		t.Fatalf("validate: %v %v", c, err)
	}
	if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	_, acked := e.em.seen()
	if len(acked) != 1 || !reflect.DeepEqual(acked[0].Topics[0].Partitions[0].AcknowledgementBatches,
		[]wire.AcknowledgementBatch{{FirstOffset: 1, LastOffset: 3, AcknowledgeType: 1}}) {
		t.Errorf("native acks %+v", acked)
	}
}

// beginWithRecord opens a transaction of producer with one record produced
// in it: kgo ends a transaction without records locally, never telling the
// coordinator, so acks sent into it would hang pending.
func beginWithRecord(ctx context.Context, t *testing.T, producer *kgo.Client, value string) {
	t.Helper()
	if err := producer.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := producer.ProduceSync(ctx, kgo.StringRecord(value)).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// checkCommitted reads "out" read_committed to its end and compares the
// values as sets.
func checkCommitted(t *testing.T, seeds []string, want []string) {
	t.Helper()
	ctx := clustertest.Context(t, 30*time.Second)
	cl := clustertest.Client(t, seeds)
	var got []string
	for p := range int32(2) {
		end, err := logread.EndOffset(ctx, cl, "out", p)
		if err != nil {
			t.Fatal(err)
		}
		err = logread.New(cl, "out", p, 0, 0).ReadTo(ctx, end, func(r *kgo.Record) error {
			got = append(got, string(r.Value))
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("committed outputs %q, want %q", got, want)
	}
}
