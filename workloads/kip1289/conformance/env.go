package conformance

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
	"github.com/sharechaos/sharechaos/workloads/shareconsumer"
)

// Env is one case's world on a broker: its own input topic (one partition),
// output topic and share group, so that cases never see each other's records
// and markers.
type Env struct {
	Broker Broker
	name   string
	input  string
	output string
	group  string
	// inputID is the input topic's id.
	inputID [16]byte

	admin *kgo.Client
	// partitioned produces to a chosen partition (ProduceTo); ids are the
	// topic ids of the inputs Inputs made.
	partitioned *kgo.Client
	ids         map[string][16]byte
	rpc         *rpc
	log         *exchanges
	closers     []func()
}

var envSeq atomic.Int64

// ShareStateRole is the share coordinator role of the input partition's
// state, its key as Kafka hashes it ("group:topicId:partition", the id in
// base64url).
func (e *Env) ShareStateRole(partition int32) Role {
	return Role{cluster.CoordShareState, fmt.Sprintf("%s:%s:%d", e.group, base64.RawURLEncoding.EncodeToString(e.inputID[:]), partition)}
}

// NewEnv creates the case's topics and share group (earliest, read_committed,
// the record lock when the broker sets it per group). Close releases what it
// made.
func NewEnv(ctx context.Context, b Broker, caseName string) (*Env, error) {
	n := envSeq.Add(1)
	prefix := fmt.Sprintf("conf-%d-%d", time.Now().UnixNano()%1_000_000, n)
	e := &Env{Broker: b, name: caseName, input: prefix + "-in", output: prefix + "-out", group: prefix + "-group",
		ids: map[string][16]byte{}, log: &exchanges{}}
	keys := b.Keys
	if keys == (kip1289.APIKeys{}) {
		keys = kip1289.DefaultAPIKeys()
	}
	admin, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.Bootstrap...), keys.ClientOpt()}, b.ClientOpts...)...)
	if err != nil {
		return nil, err
	}
	e.admin = admin
	e.closers = append(e.closers, admin.Close)
	topo := ctp.Topology{Prefix: prefix, InputTopic: e.input, OutputTopic: e.output, LedgerTopic: prefix + "-ledger",
		Group: e.group, Partitions: 1, Replication: b.replication(), MinISR: 1}
	g := ctp.GroupConfig{}
	if b.LockPerGroup {
		g.Lock = b.Settings.Lock
	}
	if err := ctp.Setup(ctx, admin, topo, g); err != nil {
		e.Close()
		return nil, fmt.Errorf("set up case %s: %w", caseName, err)
	}
	md, err := kadm.NewClient(admin).Metadata(ctx, e.input)
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("set up case %s: %w", caseName, err)
	}
	e.inputID = [16]byte(md.Topics[e.input].ID)
	if e.rpc, err = newRPC(ctx, admin, keys, e.log); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// UnfetchedTopic creates a one-partition topic, replicated like the input,
// that no member of the case's group subscribes to: its share-partition never
// exists, so acks of it are refused wherever they are sent.
func (e *Env) UnfetchedTopic(ctx context.Context) (string, error) {
	name := e.input + "-unfetched"
	resp, err := kadm.NewClient(e.admin).CreateTopic(ctx, 1, e.Broker.replication(), nil, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return "", fmt.Errorf("create %s: %w", name, err)
	}
	return name, nil
}

// Close closes every client the case made, the newest first.
func (e *Env) Close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
	e.closers = nil
}

// Produce appends n plain records to the input partition and returns their
// offsets.
func (e *Env) Produce(ctx context.Context, n int) ([]int64, error) {
	return e.ProduceTo(ctx, SharePart{Topic: e.input}, n)
}

// StartOffset is the share group's start offset of the input partition as
// the broker reports it (Kafka: as of the share-partition's last state
// write), or -1 before the group has one.
func (e *Env) StartOffset(ctx context.Context) (int64, error) {
	o, err := ctp.ReadShareOffsets(ctx, e.admin, e.group, e.input)
	if err != nil {
		return 0, err
	}
	if s, ok := o.Reported[0]; ok {
		return s, nil
	}
	return -1, nil
}

// Member is one share-group member: our share consumer, which never
// acknowledges on its own (GAP for control records aside).
type Member struct {
	e    *Env
	c    *shareconsumer.Consumer
	name string
}

// Join adds a member to the case's group.
func (e *Env) Join(ctx context.Context, name string) (*Member, error) {
	c, err := shareconsumer.New(ctx, shareconsumer.Config{Bootstrap: e.Broker.Bootstrap, Group: e.group,
		Topics: []string{e.input}, MaxRecords: 50, MaxWait: 200 * time.Millisecond, ClientOpts: e.Broker.ClientOpts})
	if err != nil {
		return nil, fmt.Errorf("member %s joins: %w", name, err)
	}
	e.closers = append(e.closers, func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Close(cctx)
	})
	return &Member{e: e, c: c, name: name}, nil
}

// Acquire polls until the member holds every one of offsets (or fails when
// within is over), and returns those records.
func (m *Member) Acquire(ctx context.Context, offsets []int64, within time.Duration) ([]*shareconsumer.Record, error) {
	deadline := time.Now().Add(within)
	var got []*shareconsumer.Record
	for {
		recs, err := m.c.Poll(ctx)
		if err != nil && ctx.Err() != nil {
			return got, err
		}
		for _, r := range recs {
			if slices.Contains(offsets, r.Offset) && !slices.ContainsFunc(got, func(g *shareconsumer.Record) bool { return g.Offset == r.Offset }) {
				got = append(got, r)
			}
		}
		if len(got) == len(offsets) {
			slices.SortFunc(got, func(a, b *shareconsumer.Record) int { return int(a.Offset - b.Offset) })
			return got, nil
		}
		if time.Now().After(deadline) {
			return got, fmt.Errorf("member %s acquired %v of offsets %v within %v (last poll error: %v)",
				m.name, offsetsOf(got), offsets, within, err)
		}
	}
}

// PollFor polls for d and returns every record acquired meanwhile (the member
// keeps them).
func (m *Member) PollFor(ctx context.Context, d time.Duration) ([]*shareconsumer.Record, error) {
	deadline := time.Now().Add(d)
	var got []*shareconsumer.Record
	for time.Now().Before(deadline) {
		recs, err := m.c.Poll(ctx)
		if err != nil && ctx.Err() != nil {
			return got, err
		}
		got = append(got, recs...)
	}
	return got, nil
}

// PlainAck is a ShareAcknowledge of offsets by this member (not
// transactional), with the broker's answer for the partition.
func (m *Member) PlainAck(ctx context.Context, t shareconsumer.AckType, offsets ...int64) error {
	var acks []shareconsumer.Ack
	for _, o := range offsets {
		acks = append(acks, shareconsumer.Ack{Topic: m.e.input, Partition: 0, FirstOffset: o, LastOffset: o, Type: t})
	}
	results, err := m.c.Acknowledge(ctx, acks)
	if len(results) == 1 {
		return results[0].Err
	}
	return err
}

// Tags are the member's id and current epoch as TxnShareAcknowledge's
// proposed tags carry them.
func (m *Member) Tags() memberTags {
	id, epoch := m.c.MemberID(), m.c.MemberEpoch()
	return memberTags{id: &id, epoch: &epoch}
}

// NoTags is TxnShareAcknowledge as KIP-1289 is written: no member named.
func NoTags() memberTags { return memberTags{} }

// Txn is one transactional producer (its own transactional id) writing to the
// case's output topic.
type Txn struct {
	e     *Env
	cl    *kgo.Client
	txnID string
}

// Producer makes a transactional producer; timeout is its transaction
// timeout (0: a minute).
func (e *Env) Producer(ctx context.Context, name string, timeout time.Duration) (*Txn, error) {
	if timeout == 0 {
		timeout = time.Minute
	}
	txnID := e.group + "-" + name
	return e.producerWithID(ctx, txnID, timeout)
}

func (e *Env) producerWithID(ctx context.Context, txnID string, timeout time.Duration) (*Txn, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(e.Broker.Bootstrap...), kgo.TransactionalID(txnID),
		kgo.TransactionTimeout(timeout), kgo.DefaultProduceTopic(e.output), e.rpc.keys.ClientOpt()},
		e.Broker.ClientOpts...)...)
	if err != nil {
		return nil, err
	}
	e.closers = append(e.closers, cl.Close)
	t := &Txn{e: e, cl: cl, txnID: txnID}
	if _, _, err := cl.ProducerID(ctx); err != nil {
		return nil, fmt.Errorf("init producer %s: %w", txnID, err)
	}
	return t, nil
}

// Fence starts a new producer with t's transactional id: its InitProducerId
// fences t and aborts t's open transaction.
func (t *Txn) Fence(ctx context.Context) (*Txn, error) {
	return t.e.producerWithID(ctx, t.txnID, time.Minute)
}

// Begin opens a transaction with one output record in it, so that the
// producer ends it with EndTxn (kgo ends a transaction without records
// locally).
func (t *Txn) Begin(ctx context.Context) error {
	if err := t.cl.BeginTransaction(); err != nil {
		return err
	}
	return t.cl.ProduceSync(ctx, kgo.StringRecord(t.e.name)).FirstErr()
}

// Identity is the producer id and epoch the producer runs under now.
func (t *Txn) Identity(ctx context.Context) (producer, error) {
	id, epoch, err := t.cl.ProducerID(ctx)
	return producer{txnID: t.txnID, id: id, epoch: epoch}, err
}

// Enlist sends AddShareAcksToTxn for the input partition, as p.
func (t *Txn) Enlist(ctx context.Context, p producer) error {
	return t.e.rpc.addShareAcksToTxn(ctx, p, t.e.group, t.e.input, 0)
}

// Ack sends TxnShareAcknowledge of offsets with one type, as p, with tags.
func (t *Txn) Ack(ctx context.Context, p producer, typ kip1289.AckType, tags memberTags, offsets ...int64) error {
	var batches []wire.AcknowledgementBatch
	for _, o := range offsets {
		batches = append(batches, wire.AcknowledgementBatch{FirstOffset: o, LastOffset: o, AcknowledgeType: int8(typ)})
	}
	return t.e.rpc.txnShareAcknowledge(ctx, p, t.e.group, t.e.input, t.e.inputID, 0, batches, tags)
}

// EnlistAndAck is the usual pair, as the producer itself.
func (t *Txn) EnlistAndAck(ctx context.Context, typ kip1289.AckType, tags memberTags, offsets ...int64) error {
	p, err := t.Identity(ctx)
	if err != nil {
		return err
	}
	if err := t.Enlist(ctx, p); err != nil {
		return fmt.Errorf("AddShareAcksToTxn: %w", err)
	}
	if err := t.Ack(ctx, p, typ, tags, offsets...); err != nil {
		return fmt.Errorf("TxnShareAcknowledge: %w", err)
	}
	return nil
}

// Commit and Abort end the transaction.
func (t *Txn) Commit(ctx context.Context) error { return t.cl.EndTransaction(ctx, kgo.TryCommit) }
func (t *Txn) Abort(ctx context.Context) error  { return t.cl.EndTransaction(ctx, kgo.TryAbort) }

func offsetsOf(recs []*shareconsumer.Record) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.Offset
	}
	return out
}

// Eventually retries check every 200ms until it returns nil or within is over
// (then its last error).
func Eventually(ctx context.Context, within time.Duration, check func() error) error {
	deadline := time.Now().Add(within)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		if serr := sleep(ctx, 200*time.Millisecond); serr != nil {
			return errors.Join(err, serr)
		}
	}
}
