package kfake

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// The broker side of KIP-1289, one state transition per test. Records are
// acquired directly in the share partition (as a ShareFetch of member m1
// would), so that each test controls exactly which member holds what; the
// RPCs themselves go over the wire, encoded by the suite's codec.

const (
	kipTopic = "in"
	kipGroup = "g"
	kipTxnID = "tx"
)

type kipEnv struct {
	t     *testing.T
	c     *Cluster
	cl    *kgo.Client
	pid   int64
	epoch int16
	tid   [16]byte
}

type kipOpts struct {
	lock        time.Duration
	policy      KIP1289PendingLock
	txnTimeout  time.Duration
	maxDelivery int
	dataDir     string
}

func newKIPEnv(t *testing.T, o kipOpts) *kipEnv {
	t.Helper()
	if o.lock == 0 {
		o.lock = 10 * time.Second
	}
	if o.maxDelivery == 0 {
		o.maxDelivery = 5
	}
	opts := []Opt{NumBrokers(1), SeedTopics(1, kipTopic), BrokerConfigs(map[string]string{
		"share.record.lock.sweep.interval.ms": "20",
		"group.share.record.lock.duration.ms": strconv.FormatInt(o.lock.Milliseconds(), 10),
		"group.share.delivery.count.limit":    strconv.Itoa(o.maxDelivery),
	})}
	if o.dataDir != "" {
		opts = append(opts, DataDir(o.dataDir))
	}
	c := newCluster(t, opts...)
	if o.policy != "" {
		if err := c.SetKIP1289PendingLock(o.policy); err != nil {
			t.Fatal(err)
		}
	}
	e := &kipEnv{t: t, c: c, tid: c.TopicInfo(kipTopic).TopicID}
	e.connect()
	return e
}

// connect makes a client that may send both keys (kgo refuses keys missing
// from its max-versions table) to the cluster as it listens now.
func (e *kipEnv) connect() {
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(wire.DefaultAddShareAcksToTxnKey, 0)
	vs.SetMaxKeyVersion(wire.DefaultTxnShareAcknowledgeKey, 0)
	e.cl = newPlainClient(e.t, e.c, kgo.MaxVersions(vs), kgo.DefaultProduceTopic(kipTopic))
}

func (e *kipEnv) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

func (e *kipEnv) produce(n int) {
	e.t.Helper()
	for i := range n {
		if err := e.cl.ProduceSync(e.ctx(), &kgo.Record{Value: []byte{byte(i)}}).FirstErr(); err != nil {
			e.t.Fatal(err)
		}
	}
}

// acquire has member acquire up to n available records of partition 0, as
// a ShareFetch would, and returns how many it got.
func (e *kipEnv) acquire(member string, n int32) (got int) {
	e.c.admin(func() {
		sg := e.c.shareGroups.getOrCreate(kipGroup)
		if sg.members[member] == nil {
			sg.members[member] = &shareMember{memberID: member, memberEpoch: 1}
		}
		pd, _ := e.c.data.tps.getp(kipTopic, 0)
		sp := sg.partitions.mkp(kipTopic, 0, func() *sharePartition {
			return &sharePartition{records: make(map[int64]shareRecord)}
		})
		for _, ar := range sp.acquireRecords(pd, pd.highWatermark, n, member, e.c.shareMaxDeliveryAttempts(), 0, false) {
			got += int(ar.LastOffset - ar.FirstOffset + 1)
		}
	})
	return got
}

func (e *kipEnv) record(offset int64) (sr shareRecord, spso int64) {
	e.c.admin(func() {
		sp, ok := e.c.shareGroups.get(kipGroup).partitions.getp(kipTopic, 0)
		if ok {
			sr, spso = sp.records[offset], sp.spso
		}
	})
	return sr, spso
}

func (e *kipEnv) wantState(offset int64, want shareRecordState, by string) {
	e.t.Helper()
	sr, spso := e.record(offset)
	if offset < spso {
		sr = shareRecord{state: shareRecordAcknowledged} // finalized and dropped
	}
	if sr.state != want || (by != "" && sr.acquiredBy != by) {
		e.t.Errorf("offset %d: state %d by %q, want %d by %q (spso %d)", offset, sr.state, sr.acquiredBy, want, by, spso)
	}
}

// plainAck is what a ShareAcknowledge of member does to the partition.
func (e *kipEnv) plainAck(member string, first, last int64) (code int16) {
	e.c.admin(func() {
		sp, _ := e.c.shareGroups.get(kipGroup).partitions.getp(kipTopic, 0)
		code = sp.validateAndProcessAcks(member, []ackBatch{{first, last, []int8{shareAckAccept}}}, e.c.shareMaxDeliveryAttempts())
	})
	return code
}

func (e *kipEnv) initProducer(timeout time.Duration) {
	e.t.Helper()
	if timeout == 0 {
		timeout = time.Minute
	}
	req := kmsg.NewPtrInitProducerIDRequest()
	txid := kipTxnID
	req.TransactionalID = &txid
	req.TransactionTimeoutMillis = int32(timeout.Milliseconds())
	req.ProducerID, req.ProducerEpoch = -1, -1
	resp, err := req.RequestWith(e.ctx(), e.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		e.t.Fatalf("init producer id: %v", err)
	}
	e.pid, e.epoch = resp.ProducerID, resp.ProducerEpoch
}

func (e *kipEnv) addShareAcks(epoch int16) error {
	req := &wire.AddShareAcksToTxnRequest{
		TransactionalID: kipTxnID, ProducerID: e.pid, ProducerEpoch: epoch, GroupID: kipGroup,
		Topics: []wire.AddShareAcksToTxnRequestTopic{{Topic: kipTopic, Partitions: []int32{0}}},
	}
	resp, err := req.RequestWith(e.ctx(), e.cl.Broker(0))
	if err != nil {
		return err
	}
	return kerr.ErrorForCode(resp.ErrorCode)
}

type ackOpt func(*wire.TxnShareAcknowledgeRequest)

func asMember(id string, epoch int32) ackOpt {
	return func(r *wire.TxnShareAcknowledgeRequest) { r.MemberID, r.MemberEpoch = &id, &epoch }
}

func (e *kipEnv) txnAck(epoch int16, batches []wire.AcknowledgementBatch, opts ...ackOpt) error {
	req := &wire.TxnShareAcknowledgeRequest{
		GroupID: kipGroup, TransactionalID: kipTxnID, ProducerID: e.pid, ProducerEpoch: epoch,
		Topics: []wire.TxnShareAcknowledgeRequestTopic{{TopicID: e.tid,
			Partitions: []wire.TxnShareAcknowledgeRequestPartition{{Partition: 0, AcknowledgementBatches: batches}}}},
	}
	for _, o := range opts {
		o(req)
	}
	resp, err := req.RequestWith(e.ctx(), e.cl.Broker(0))
	if err != nil {
		return err
	}
	return kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode)
}

func accept(first, last int64) []wire.AcknowledgementBatch {
	return []wire.AcknowledgementBatch{{FirstOffset: first, LastOffset: last, AcknowledgeType: shareAckAccept}}
}

func (e *kipEnv) endTxn(commit bool) error {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = kipTxnID, e.pid, e.epoch, commit
	resp, err := req.RequestWith(e.ctx(), e.cl)
	if err != nil {
		return err
	}
	if resp.Version >= 5 {
		e.epoch = resp.ProducerEpoch
	}
	return kerr.ErrorForCode(resp.ErrorCode)
}

// stage acquires n records for m1 and makes offsets 0..n-1 pending (accept).
func (e *kipEnv) stage(n int) {
	e.t.Helper()
	e.produce(n)
	if got := e.acquire("m1", int32(n)); got != n {
		e.t.Fatalf("acquired %d records, want %d", got, n)
	}
	e.initProducer(0)
	if err := e.addShareAcks(e.epoch); err != nil {
		e.t.Fatalf("add share acks to txn: %v", err)
	}
	if err := e.txnAck(e.epoch, accept(0, int64(n-1))); err != nil {
		e.t.Fatalf("txn share acknowledge: %v", err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", what, err, want)
	}
}

func TestKIP1289Advertised(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(e.ctx(), e.cl)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int16]bool{}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == wire.DefaultAddShareAcksToTxnKey || k.ApiKey == wire.DefaultTxnShareAcknowledgeKey {
			seen[k.ApiKey] = k.MinVersion == 0 && k.MaxVersion == 0
		}
	}
	if !seen[wire.DefaultAddShareAcksToTxnKey] || !seen[wire.DefaultTxnShareAcknowledgeKey] {
		t.Errorf("ApiVersions does not advertise both keys at v0: %v", seen)
	}
}

// An unknown key used to crash kfake in its connection reader.
func TestKIP1289UnknownKeyClosesConnection(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	conn, err := net.Dial("tcp", e.c.ListenAddrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := binary.BigEndian.AppendUint16(nil, 30000) // key
	body = binary.BigEndian.AppendUint16(body, 0)     // version
	body = binary.BigEndian.AppendUint32(body, 1)     // correlation id
	body = binary.BigEndian.AppendUint16(body, 0xffff)
	if _, err := conn.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("read after an unknown key: %v, want EOF (closed)", err)
	}
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(e.ctx(), e.cl); err != nil {
		t.Errorf("cluster no longer answers: %v", err)
	}
}

func TestKIP1289CommitAcknowledges(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	e.produce(3)
	e.acquire("m1", 3)
	e.initProducer(0)
	if err := e.addShareAcks(e.epoch); err != nil {
		t.Fatal(err)
	}
	err := e.txnAck(e.epoch, []wire.AcknowledgementBatch{
		{FirstOffset: 0, LastOffset: 1, AcknowledgeType: shareAckAccept},
		{FirstOffset: 2, LastOffset: 2, AcknowledgeType: shareAckReject},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.wantState(0, shareRecordTxnPending, "m1")
	if code := e.plainAck("m1", 0, 0); code != kerr.InvalidRecordState.Code {
		t.Errorf("plain ack of a pending record: code %d, want INVALID_RECORD_STATE", code)
	}
	if got := e.acquire("m2", 10); got != 0 {
		t.Errorf("m2 acquired %d pending records", got)
	}
	if err := e.endTxn(true); err != nil {
		t.Fatal(err)
	}
	if _, spso := e.record(0); spso != 3 {
		t.Errorf("after commit the start offset is %d, want 3 (all finalized)", spso)
	}
}

func TestKIP1289AbortReturnsToAcquired(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	e.stage(2)
	if err := e.endTxn(false); err != nil {
		t.Fatal(err)
	}
	e.wantState(0, shareRecordAcquired, "m1")
	e.wantState(1, shareRecordAcquired, "m1")
	if code := e.plainAck("m1", 0, 1); code != 0 {
		t.Errorf("plain ack after abort: code %d", code)
	}
}

func TestKIP1289AbortAfterLockExpiry(t *testing.T) {
	t.Parallel()
	// hold, so that the lock sweep does not release the records first.
	e := newKIPEnv(t, kipOpts{lock: 300 * time.Millisecond, policy: KIP1289PendingLockHold, maxDelivery: 1})
	e.produce(2)
	e.acquire("m1", 2)
	e.c.admin(func() { // offset 1 was delivered before: below the limit of 1 only for offset 0
		sp, _ := e.c.shareGroups.get(kipGroup).partitions.getp(kipTopic, 0)
		sr := sp.records[0]
		sr.deliveryCount = 0
		sp.records[0] = sr
	})
	e.initProducer(0)
	if err := e.addShareAcks(e.epoch); err != nil {
		t.Fatal(err)
	}
	if err := e.txnAck(e.epoch, accept(0, 1)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	e.wantState(0, shareRecordTxnPending, "")
	if err := e.endTxn(false); err != nil {
		t.Fatal(err)
	}
	e.wantState(0, shareRecordAvailable, "")
	e.wantState(1, shareRecordArchived, "") // at the delivery limit
}

func TestKIP1289TimeoutAborts(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	e.produce(1)
	e.acquire("m1", 1)
	e.initProducer(400 * time.Millisecond)
	if err := e.addShareAcks(e.epoch); err != nil {
		t.Fatal(err)
	}
	if err := e.txnAck(e.epoch, accept(0, 0)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if sr, _ := e.record(0); sr.state == shareRecordAcquired {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the transaction timeout did not abort the pending ack")
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.wantState(0, shareRecordAcquired, "m1")
	wantErr(t, "ack at the timed-out epoch", e.txnAck(e.epoch, accept(0, 0)), kerr.ProducerFenced)
}

func TestKIP1289IdempotentRetry(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	e.stage(2)
	if err := e.addShareAcks(e.epoch); err != nil {
		t.Errorf("retried add: %v", err)
	}
	if err := e.txnAck(e.epoch, accept(0, 1)); err != nil {
		t.Errorf("retried ack: %v", err)
	}
	if err := e.endTxn(true); err != nil {
		t.Fatal(err)
	}
	if _, spso := e.record(0); spso != 2 {
		t.Errorf("start offset %d after commit, want 2", spso)
	}
}

func TestKIP1289Fencing(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	e.stage(1)
	old := e.epoch
	e.initProducer(0) // a new instance of the same transactional id
	e.wantState(0, shareRecordAcquired, "m1")
	wantErr(t, "add at the fenced epoch", e.addShareAcks(old), kerr.ProducerFenced)
	wantErr(t, "ack at the fenced epoch", e.txnAck(old, accept(0, 0)), kerr.ProducerFenced)
	wantErr(t, "ack before add", e.txnAck(e.epoch, accept(0, 0)), kerr.InvalidTxnState)
	wantErr(t, "ack at a future epoch", e.txnAck(e.epoch+1, accept(0, 0)), kerr.InvalidProducerEpoch)
}

func TestKIP1289RefusedRecords(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	e.produce(3)
	e.acquire("m1", 2)
	e.initProducer(0)
	if err := e.addShareAcks(e.epoch); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "ack of a record nobody acquired", e.txnAck(e.epoch, accept(0, 2)), kerr.InvalidRecordState)
	e.wantState(0, shareRecordAcquired, "m1") // all or nothing
	wantErr(t, "ack type renew", e.txnAck(e.epoch, []wire.AcknowledgementBatch{{LastOffset: 0, AcknowledgeType: shareAckRenew}}), kerr.InvalidRequest)
}

func TestKIP1289MemberTags(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{})
	e.produce(2)
	e.acquire("m1", 1)
	e.acquire("m2", 1)
	e.initProducer(0)
	if err := e.addShareAcks(e.epoch); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "unknown member", e.txnAck(e.epoch, accept(0, 0), asMember("nobody", 1)), kerr.UnknownMemberID)
	wantErr(t, "stale member epoch", e.txnAck(e.epoch, accept(0, 0), asMember("m1", 0)), kerr.FencedMemberEpoch)
	wantErr(t, "member m2 acks m1's record", e.txnAck(e.epoch, accept(0, 0), asMember("m2", 1)), kerr.InvalidRecordState)
	if err := e.txnAck(e.epoch, accept(0, 0), asMember("m1", 1)); err != nil {
		t.Errorf("m1 acks its own record: %v", err)
	}
	// Without the tags, as the KIP is written, any acquired record goes.
	if err := e.txnAck(e.epoch, accept(1, 1)); err != nil {
		t.Errorf("ack without member tags: %v", err)
	}
}

func TestKIP1289PendingLockExpire(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{lock: 300 * time.Millisecond, policy: KIP1289PendingLockExpire})
	e.stage(1)
	time.Sleep(600 * time.Millisecond)
	e.wantState(0, shareRecordAvailable, "")
	if got := e.acquire("m2", 1); got != 1 {
		t.Fatalf("m2 acquired %d records after the lock expired, want 1", got)
	}
	if err := e.endTxn(true); err != nil {
		t.Fatal(err)
	}
	// The KIP as written: the commit applies although m2 holds the record
	// now, so both members processed it. (kfake then takes m2's own ack of
	// the finalized record silently, as it takes any ack below the start
	// offset.)
	e.wantState(0, shareRecordAcknowledged, "")
	if got := e.acquire("m3", 1); got != 0 {
		t.Errorf("the committed record was delivered again (%d)", got)
	}
}

func TestKIP1289PendingLockHold(t *testing.T) {
	t.Parallel()
	e := newKIPEnv(t, kipOpts{lock: 300 * time.Millisecond, policy: KIP1289PendingLockHold})
	e.stage(1)
	time.Sleep(600 * time.Millisecond)
	e.wantState(0, shareRecordTxnPending, "m1")
	if got := e.acquire("m2", 1); got != 0 {
		t.Errorf("m2 acquired %d held records", got)
	}
	if err := e.endTxn(true); err != nil {
		t.Fatal(err)
	}
	e.wantState(0, shareRecordAcknowledged, "")
}

func TestKIP1289SurvivesGracefulRestart(t *testing.T) {
	dir := t.TempDir()
	e := newKIPEnv(t, kipOpts{dataDir: dir})
	e.stage(2)
	e.c.Close()

	e2 := newKIPEnv(t, kipOpts{dataDir: dir})
	e2.pid, e2.epoch = e.pid, e.epoch
	e2.wantState(0, shareRecordTxnPending, "m1")
	if code := e2.plainAck("m1", 0, 0); code != kerr.InvalidRecordState.Code {
		t.Errorf("plain ack of a restored pending record: code %d", code)
	}
	if err := e2.txnAck(e2.epoch, accept(0, 1)); err != nil {
		t.Errorf("retry after the restart: %v", err)
	}
	if err := e2.endTxn(true); err != nil {
		t.Fatal(err)
	}
	if _, spso := e2.record(0); spso != 2 {
		t.Errorf("start offset %d after the commit, want 2", spso)
	}
}
