package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/shareconsumer"
)

// Case is one row of the suite.
type Case struct {
	// Name is stable kebab-case (go test -run).
	Name string
	// Settings is the broker it needs; an empty Policy runs on the expire
	// broker (the KIP as written, both brokers' default).
	Settings Settings
	// Differs names the docs/FINDINGS.md entry of a step on which the two
	// brokers answer differently (asserted per broker with wantByKind).
	Differs string
	// Needs are the failovers the case asks of its broker (a restart, a
	// leader kill, a leader move): a broker without one (the reference
	// broker, one process, cannot lose a leader; an external cluster without
	// the hook) makes the case N/A, saying why.
	Needs []Need
	// Run performs the case and returns why it failed, or nil.
	Run func(ctx context.Context, e *Env) error
}

// Need is a failover a case asks of its broker.
type Need string

const (
	NeedRestart Need = "restart"
	NeedKill    Need = "leader kill"
	NeedMove    Need = "leader move"
)

// Findings that name the differences the cases assert.
const (
	findingFencedCode = "docs/FINDINGS.md 18: a fenced producer's TxnShareAcknowledge is PRODUCER_FENCED on the reference broker, INVALID_PRODUCER_EPOCH on Kafka"
	findingMemberTags = "docs/FINDINGS.md 19: the member tags at the partition leader: Kafka checks only that the named member holds the records"
	findingLockAcross = "docs/FINDINGS.md 26: under expire a pending record's lock runs on across a restart on the reference broker; Kafka's new leader restores the entry without a lock, held until its marker"
)

var long = Settings{Policy: PolicyExpire, Lock: LongLock}

// Cases is the suite: every row runs on every broker that speaks KIP-1289.
var Cases = []Case{
	{Name: "commit-materializes", Settings: long, Run: commitMaterializes},
	{Name: "abort-returns-records", Settings: long, Run: abortReturnsRecords},
	{Name: "timed-out-txn-returns-records", Settings: long, Run: timedOutTxnReturnsRecords},
	{Name: "fenced-producer-refused", Settings: long, Differs: findingFencedCode, Run: fencedProducerRefused},
	{Name: "ack-without-enlist-refused", Settings: long, Run: ackWithoutEnlistRefused},
	{Name: "plain-ack-of-pending-refused", Settings: long, Run: plainAckOfPendingRefused},
	{Name: "ack-of-records-not-held-refused", Settings: long, Run: ackOfRecordsNotHeldRefused},
	{Name: "retry-in-same-txn-is-idempotent", Settings: long, Run: retryIsIdempotent},
	{Name: "member-tags-absent-any-holder", Settings: long, Run: memberTagsAbsent},
	{Name: "member-tags-unknown-member", Settings: long, Differs: findingMemberTags, Run: memberTagsUnknownMember},
	{Name: "member-tags-stale-epoch", Settings: long, Differs: findingMemberTags, Run: memberTagsStaleEpoch},
	{Name: "two-txns-same-record", Settings: long, Run: twoTxnsSameRecord},
	{Name: "workload-sender-routes-by-version", Settings: long, Run: workloadSenderRoutes},
	// One transaction's requests in every shape (shapes.go), each ended both ways.
	{Name: "one-request-several-partitions-commit", Settings: long, Run: shapeCase(shapeSeveralPartitions, true)},
	{Name: "one-request-several-partitions-abort", Settings: long, Run: shapeCase(shapeSeveralPartitions, false)},
	{Name: "one-request-several-topics-commit", Settings: long, Run: shapeCase(shapeSeveralTopics, true)},
	{Name: "one-request-several-topics-abort", Settings: long, Run: shapeCase(shapeSeveralTopics, false)},
	{Name: "one-request-batches-with-gaps-commit", Settings: long, Run: shapeCase(shapeBatchesWithGaps, true)},
	{Name: "one-request-batches-with-gaps-abort", Settings: long, Run: shapeCase(shapeBatchesWithGaps, false)},
	{Name: "one-request-mixed-types-commit", Settings: long, Run: shapeCase(shapeMixedTypes, true)},
	{Name: "one-request-mixed-types-abort", Settings: long, Run: shapeCase(shapeMixedTypes, false)},
	{Name: "several-groups-one-txn-commit", Settings: long, Run: shapeCase(shapeSeveralGroups, true)},
	{Name: "several-groups-one-txn-abort", Settings: long, Run: shapeCase(shapeSeveralGroups, false)},
	{Name: "pending-lock-hold", Settings: Settings{Policy: PolicyHold, Lock: ShortLock}, Run: pendingLockHold},
	{Name: "pending-lock-expire", Settings: Settings{Policy: PolicyExpire, Lock: ShortLock}, Run: pendingLockExpire},
	// Restarts last: the broker they share comes back on new connections.
	{Name: "pending-lock-hold-across-restart", Needs: []Need{NeedRestart}, Settings: Settings{Policy: PolicyHold, Lock: ShortLock}, Run: pendingLockHoldAcrossRestart},
	{Name: "pending-lock-expire-across-restart", Needs: []Need{NeedRestart}, Settings: Settings{Policy: PolicyExpire, Lock: ShortLock}, Differs: findingLockAcross, Run: pendingLockExpireAcrossRestart},
	{Name: "pending-survives-restart-then-commit", Needs: []Need{NeedRestart}, Settings: long, Run: restartThenCommit},
	{Name: "pending-survives-leader-kill-resend-commit", Settings: Settings{Policy: PolicyHold, Lock: LongLock, Brokers: 3},
		Needs: []Need{NeedKill}, Run: leaderKillResendCommit},
	{Name: "pending-survives-leader-and-share-state-kill-commit", Settings: Settings{Policy: PolicyHold, Lock: LongLock, Brokers: 3},
		Needs: []Need{NeedKill}, Run: leaderAndShareStateKillThenCommit},
	{Name: "ack-of-a-lost-acquisition-takes-the-new-one", Settings: Settings{Policy: PolicyHold, Lock: LongLock, Brokers: 3},
		Needs: []Need{NeedKill}, Run: ackOfLostAcquisitionTakesTheNewOne},
	{Name: "refusal-survives-a-siblings-retry", Settings: Settings{Policy: PolicyHold, Lock: LongLock, Brokers: 3},
		Needs: []Need{NeedMove}, Run: refusalSurvivesASiblingsRetry},
	{Name: "pending-survives-restart-commit-before-load", Needs: []Need{NeedRestart}, Settings: long, Run: restartCommitBeforeLoad},
	{Name: "pending-survives-restart-then-abort", Needs: []Need{NeedRestart}, Settings: long, Run: restartThenAbort},
}

// acquireTimeout bounds a member's wait for records it should get at once.
const acquireTimeout = 15 * time.Second

// setup produces n input records and has member a acquire them.
func setup(ctx context.Context, e *Env, n int) (*Member, []int64, error) {
	offsets, err := e.Produce(ctx, n)
	if err != nil {
		return nil, nil, err
	}
	a, err := e.Join(ctx, "a")
	if err != nil {
		return nil, nil, err
	}
	if _, err := a.Acquire(ctx, offsets, acquireTimeout); err != nil {
		return nil, nil, err
	}
	return a, offsets, nil
}

// begin makes a producer and opens its transaction.
func begin(ctx context.Context, e *Env, name string, timeout time.Duration) (*Txn, error) {
	t, err := e.Producer(ctx, name, timeout)
	if err != nil {
		return nil, err
	}
	return t, t.Begin(ctx)
}

// setupTxn is setup and then begin of the case's transaction "t" (timeout
// 0: the producer's default): the opening of most cases.
func setupTxn(ctx context.Context, e *Env, n int, timeout time.Duration) (*Member, []int64, *Txn, error) {
	a, offsets, err := setup(ctx, e, n)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := begin(ctx, e, "t", timeout)
	if err != nil {
		return nil, nil, nil, err
	}
	return a, offsets, t, nil
}

// checkMaterialized: the share-partition moved past offsets, so they are
// finalized and never delivered again. The start offset Kafka reports is the
// one of the share-partition's last state write, which the settlement itself
// makes before it moves (docs/FINDINGS.md 4); so nudger acknowledges a fresh
// record meanwhile (and GAP-acks the transaction's marker), whose write
// reports the moved offset.
func checkMaterialized(ctx context.Context, e *Env, nudger *Member, offsets []int64) error {
	last := slices.Max(offsets)
	var start int64
	err := Eventually(ctx, 20*time.Second, func() error {
		var err error
		if start, err = e.StartOffset(ctx); err != nil {
			return err
		}
		if start > last {
			return nil
		}
		if _, err := e.Produce(ctx, 1); err != nil {
			return err
		}
		recs, err := nudger.PollFor(ctx, 500*time.Millisecond)
		if err != nil {
			return err
		}
		var fresh []int64
		for _, r := range recs {
			if r.Offset > last {
				fresh = append(fresh, r.Offset)
			}
		}
		if len(fresh) > 0 {
			if err := nudger.PlainAck(ctx, shareconsumer.Accept, fresh...); err != nil {
				return fmt.Errorf("nudge: %w", err)
			}
		}
		return fmt.Errorf("share start offset %d, not past %d", start, last)
	})
	if err != nil {
		return fmt.Errorf("acks of %v not materialized: %w", offsets, err)
	}
	return nil
}

// checkReturned: offsets are a's again (ACQUIRED by a, not finalized): a can
// release them (retried while the settlement is still on its way) and
// acquires them again as their second delivery. A broker that finalized them
// instead never delivers them again.
func checkReturned(ctx context.Context, a *Member, offsets []int64) error {
	err := Eventually(ctx, 20*time.Second, func() error {
		return a.PlainAck(ctx, shareconsumer.Release, offsets...)
	})
	if err != nil {
		return fmt.Errorf("records %v not returned to member %s: release: %w", offsets, a.name, err)
	}
	recs, err := a.Acquire(ctx, offsets, acquireTimeout)
	if err != nil {
		return fmt.Errorf("records %v not returned: %w", offsets, err)
	}
	for _, r := range recs {
		if r.DeliveryCount != 2 {
			return fmt.Errorf("offset %d came back as delivery %d, want 2", r.Offset, r.DeliveryCount)
		}
	}
	return nil
}

func commitMaterializes(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 3, 0)
	if err != nil {
		return err
	}
	if err := want("stage", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err := checkMaterialized(ctx, e, a, offsets); err != nil {
		return err
	}
	return checkDrained(ctx, e, a)
}

// checkDrained: the share group gets done with everything in the input
// partition, the transaction's control record included (on Kafka, the marker
// the enlisted input partition got): our share consumer acknowledges an
// acquired offset that carries no record as GAP at once; without that the
// marker would come back at every lock expiry until the delivery limit
// archived it. Judged as the suite judges a drain (ctp.ReadShareOffsets: lag
// 0 is done, since Kafka reports the start offset of the last state write).
func checkDrained(ctx context.Context, e *Env, m *Member) error {
	if err := e.checkPartsDrained(ctx, e.group, m, []SharePart{{Topic: e.input}}); err != nil {
		return fmt.Errorf("a control record left behind? %w", err)
	}
	return nil
}

func abortReturnsRecords(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 3, 0)
	if err != nil {
		return err
	}
	if err := want("stage", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return err
	}
	if err := t.Abort(ctx); err != nil {
		return fmt.Errorf("abort: %w", err)
	}
	return checkReturned(ctx, a, offsets)
}

func timedOutTxnReturnsRecords(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 2, 2*time.Second)
	if err != nil {
		return err
	}
	if err := want("stage", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return err
	}
	// No EndTxn: the transaction coordinator aborts it after 2s.
	return checkReturned(ctx, a, offsets)
}

func fencedProducerRefused(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 2, 0)
	if err != nil {
		return err
	}
	stale, err := t.Identity(ctx)
	if err != nil {
		return err
	}
	if err := want("enlist before the fence", t.Enlist(ctx, stale), nil); err != nil {
		return err
	}
	if _, err := t.Fence(ctx); err != nil {
		return err
	}
	if err := want("AddShareAcksToTxn of the fenced producer", t.Enlist(ctx, stale), kerr.ProducerFenced); err != nil {
		return err
	}
	err = t.Ack(ctx, stale, kip1289.AckAccept, a.Tags(), offsets...)
	if err := e.wantByKind("TxnShareAcknowledge of the fenced producer", err,
		map[Kind]error{Reference: kerr.ProducerFenced, Kafka: kerr.InvalidProducerEpoch}); err != nil {
		return err
	}
	return checkReturned(ctx, a, offsets)
}

func ackWithoutEnlistRefused(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 2, 0)
	if err != nil {
		return err
	}
	p, err := t.Identity(ctx)
	if err != nil {
		return err
	}
	if err := want("TxnShareAcknowledge before AddShareAcksToTxn", t.Ack(ctx, p, kip1289.AckAccept, a.Tags(), offsets...),
		kerr.InvalidTxnState); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkReturned(ctx, a, offsets)
}

func plainAckOfPendingRefused(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 2, 0)
	if err != nil {
		return err
	}
	if err := want("stage", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return err
	}
	for _, typ := range []shareconsumer.AckType{shareconsumer.Accept, shareconsumer.Release} {
		if err := want("plain "+typ.String()+" of a pending record", a.PlainAck(ctx, typ, offsets...), kerr.InvalidRecordState); err != nil {
			return err
		}
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

func ackOfRecordsNotHeldRefused(ctx context.Context, e *Env) error {
	a, offsets, err := setup(ctx, e, 2)
	if err != nil {
		return err
	}
	b, err := e.Join(ctx, "b")
	if err != nil {
		return err
	}
	undelivered, err := e.Produce(ctx, 1)
	if err != nil {
		return err
	}
	t, err := begin(ctx, e, "t", 0)
	if err != nil {
		return err
	}
	p, err := t.Identity(ctx)
	if err != nil {
		return err
	}
	if err := want("enlist", t.Enlist(ctx, p), nil); err != nil {
		return err
	}
	if err := want("ack as a member that does not hold them", t.Ack(ctx, p, kip1289.AckAccept, b.Tags(), offsets...),
		kerr.InvalidRecordState); err != nil {
		return err
	}
	if err := want("ack of a record nobody acquired", t.Ack(ctx, p, kip1289.AckAccept, a.Tags(), undelivered...),
		kerr.InvalidRecordState); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkReturned(ctx, a, offsets)
}

func retryIsIdempotent(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 2, 0)
	if err != nil {
		return err
	}
	for i := range 2 {
		if err := want(fmt.Sprintf("stage, attempt %d", i+1), t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
			return err
		}
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

func memberTagsAbsent(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 2, 0)
	if err != nil {
		return err
	}
	if err := want("stage without member tags (any holder)", t.EnlistAndAck(ctx, kip1289.AckAccept, NoTags(), offsets...), nil); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

func memberTagsUnknownMember(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 2, 0)
	if err != nil {
		return err
	}
	p, err := t.Identity(ctx)
	if err != nil {
		return err
	}
	if err := want("enlist", t.Enlist(ctx, p), nil); err != nil {
		return err
	}
	nobody, epoch := "no-such-member", int32(1)
	err = t.Ack(ctx, p, kip1289.AckAccept, memberTags{id: &nobody, epoch: &epoch}, offsets...)
	if err := e.wantByKind("ack naming a member not in the group", err,
		map[Kind]error{Reference: kerr.UnknownMemberID, Kafka: kerr.InvalidRecordState}); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkReturned(ctx, a, offsets)
}

func memberTagsStaleEpoch(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 2, 0)
	if err != nil {
		return err
	}
	p, err := t.Identity(ctx)
	if err != nil {
		return err
	}
	if err := want("enlist", t.Enlist(ctx, p), nil); err != nil {
		return err
	}
	tags := a.Tags()
	stale := *tags.epoch + 7
	tags.epoch = &stale
	err = t.Ack(ctx, p, kip1289.AckAccept, tags, offsets...)
	if err := e.wantByKind("ack naming the holder at another member epoch", err,
		map[Kind]error{Reference: kerr.FencedMemberEpoch, Kafka: nil}); err != nil {
		return err
	}
	// Whatever was staged goes back with the abort.
	if err := t.Abort(ctx); err != nil {
		return fmt.Errorf("abort: %w", err)
	}
	return checkReturned(ctx, a, offsets)
}

func twoTxnsSameRecord(ctx context.Context, e *Env) error {
	a, offsets, err := setup(ctx, e, 2)
	if err != nil {
		return err
	}
	t1, err := begin(ctx, e, "t1", 0)
	if err != nil {
		return err
	}
	t2, err := begin(ctx, e, "t2", 0)
	if err != nil {
		return err
	}
	if err := want("t1 stages", t1.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return err
	}
	if err := want("t2 stages the records pending in t1", t2.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...),
		kerr.InvalidRecordState); err != nil {
		return err
	}
	if err := t1.Abort(ctx); err != nil {
		return fmt.Errorf("t1 abort: %w", err)
	}
	// t1's abort returns them to a, and t2 may stage them now.
	err = Eventually(ctx, 20*time.Second, func() error {
		return t2.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...)
	})
	if err := want("t2 stages them after t1 aborted", err, nil); err != nil {
		return err
	}
	if err := t2.Commit(ctx); err != nil {
		return fmt.Errorf("t2 commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

// stageAndOutwaitLock stages a's records in an open transaction, then lets
// member b poll past the records' acquisition lock: what b gets is what the
// lock policy let go.
func stageAndOutwaitLock(ctx context.Context, e *Env) (a, b *Member, t *Txn, offsets []int64, bGot []int64, err error) {
	a, offsets, err = setup(ctx, e, 2)
	if err != nil {
		return
	}
	if t, err = begin(ctx, e, "t", 0); err != nil {
		return
	}
	if err = want("stage", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return
	}
	if b, err = e.Join(ctx, "b"); err != nil {
		return
	}
	recs, err := b.PollFor(ctx, e.Broker.Settings.Lock+4*time.Second)
	for _, r := range recs {
		// b's own lock runs out too while it polls on: each offset once.
		if slices.Contains(offsets, r.Offset) && !slices.Contains(bGot, r.Offset) {
			bGot = append(bGot, r.Offset)
		}
	}
	return
}

func pendingLockHold(ctx context.Context, e *Env) error {
	a, _, t, offsets, bGot, err := stageAndOutwaitLock(ctx, e)
	if err != nil {
		return err
	}
	return heldThenCommitted(ctx, e, a, t, offsets, bGot, "")
}

// heldThenCommitted: under hold member b got none of the pending offsets
// (when says at what point), and the commit materializes them.
func heldThenCommitted(ctx context.Context, e *Env, a *Member, t *Txn, offsets, bGot []int64, when string) error {
	if len(bGot) > 0 {
		return fmt.Errorf("hold: member b acquired %v%s while their acks were pending", bGot, when)
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

func pendingLockExpire(ctx context.Context, e *Env) error {
	a, _, t, offsets, bGot, err := stageAndOutwaitLock(ctx, e)
	if err != nil {
		return err
	}
	slices.Sort(bGot)
	if !slices.Equal(bGot, offsets) {
		return fmt.Errorf("expire: member b acquired %v once the lock ran out, want %v (redelivered while pending)", bGot, offsets)
	}
	// The KIP as written: the transaction still commits the lapsed acks, and
	// finalizes the records b now holds (docs/FINDINGS.md 3).
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

// stageAndRestart stages a's records in an open transaction, then restarts
// the broker: the share-partition loads again, from what was persisted.
func stageAndRestart(ctx context.Context, e *Env) (a *Member, t *Txn, offsets []int64, err error) {
	if e.Broker.Restart == nil {
		return nil, nil, nil, fmt.Errorf("broker %s cannot restart", e.Broker.Kind)
	}
	if a, offsets, err = setup(ctx, e, 3); err != nil {
		return
	}
	if t, err = begin(ctx, e, "t", 0); err != nil {
		return
	}
	if err = want("stage", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return
	}
	if err = e.Broker.Restart(ctx, e.input, 0); err != nil {
		err = fmt.Errorf("restart: %w", err)
	}
	return
}

// A share-partition leader failover with acks pending (FINDINGS 27): a's
// records are staged at the input partition's leader L, L is SIGKILLed, and
// once another broker L2 leads the partition, member b's poll there loads the
// share-partition (the pending set restored, held: b gets nothing); the
// producer resends the same acks, as a client whose answer was lost with L
// does, and L2 must answer ok without staging them twice; the commit then
// materializes them at L2, and L back on its data hands out none of them.
func leaderKillResendCommit(ctx context.Context, e *Env) error {
	a, offsets, t, restart, err := stageThenKillLeader(ctx, e, nil)
	if err != nil {
		return err
	}
	b, err := joinAfterKill(ctx, e)
	if err != nil {
		return err
	}
	got, err := b.PollFor(ctx, 3*time.Second) // loads the share-partition at the new leader
	if err != nil {
		return err
	}
	if err := noneRedelivered(got, offsets, "at the new leader while its ack was pending"); err != nil {
		return err
	}
	if err := want("the resent acks at the new leader", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return materializedThroughReturn(ctx, e, b, offsets, restart)
}

// The leader that staged the acks also coordinates their share-partition's
// state (FINDINGS 27: the anomalous cell's killed broker led both), and is
// SIGKILLed before the commit: the new leader restores the entry from the
// state the new share coordinator loaded, the commit's marker settles it, and
// the records are never delivered again, before or after the old leader is
// back.
func leaderAndShareStateKillThenCommit(ctx context.Context, e *Env) error {
	_, offsets, t, restart, err := stageThenKillLeader(ctx, e, []Role{e.ShareStateRole(0)})
	if err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	b, err := joinAfterKill(ctx, e)
	if err != nil {
		return err
	}
	got, err := b.PollFor(ctx, 3*time.Second)
	if err != nil {
		return err
	}
	if err := noneRedelivered(got, offsets, "at the new leader after the commit"); err != nil {
		return err
	}
	return materializedThroughReturn(ctx, e, b, offsets, restart)
}

// A transaction's acks of records whose acquisition died with the leader,
// sent once the same member has the records again from the new leader (at
// delivery 1 again: Kafka persists no acquisition, FINDINGS 12), are accepted
// against that new acquisition and committed; a second transaction's acks of
// the same records are refused. So a loop that processes the records again
// cannot commit them twice (FINDINGS 27 ruled this way out by running).
func ackOfLostAcquisitionTakesTheNewOne(ctx context.Context, e *Env) error {
	if e.Broker.KillLeader == nil {
		return fmt.Errorf("broker %s cannot kill a leader", e.Broker.Kind)
	}
	a, offsets, t, err := setupTxn(ctx, e, 3, 0)
	if err != nil {
		return err
	}
	restart, err := e.Broker.KillLeader(ctx, e.input, 0, spareForCommit(e, t), nil)
	if err != nil {
		return fmt.Errorf("kill the leader: %w", err)
	}
	if _, err := a.Acquire(ctx, offsets, 40*time.Second); err != nil {
		return fmt.Errorf("the same member at the new leader: %w", err)
	}
	if err := want("the first transaction's acks at the new leader", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	var t2 *Txn
	// A seed broker may be the dead one: a new producer's start retries.
	if err := Eventually(ctx, 40*time.Second, func() (err error) { t2, err = begin(ctx, e, "t2", 0); return err }); err != nil {
		return err
	}
	if err := want("the second transaction's acks of the same records", t2.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), kerr.InvalidRecordState); err != nil {
		return err
	}
	if err := t2.Abort(ctx); err != nil {
		return fmt.Errorf("abort the second transaction: %w", err)
	}
	b, err := joinAfterKill(ctx, e)
	if err != nil {
		return err
	}
	return materializedThroughReturn(ctx, e, b, offsets, restart)
}

// spareForCommit are the roles a commit of t needs alive: its transaction's
// coordinator and its output's leader (the cases kill the input's leader).
func spareForCommit(e *Env, t *Txn) []Role {
	return []Role{{cluster.CoordTransaction, t.txnID}, {cluster.CoordLeader, e.output + "/0"}}
}

// stageThenKillLeader has member a acquire three records and stage their
// ACCEPTs in a transaction at the input partition's leader, then SIGKILLs
// that leader with the roles in with (moved onto it first). The
// transaction's coordinator and its output's leader stay up: the commit
// must reach them (the cases are about the input's leader).
func stageThenKillLeader(ctx context.Context, e *Env, with []Role) (a *Member, offsets []int64, t *Txn, restart func(context.Context) error, err error) {
	if e.Broker.KillLeader == nil {
		return nil, nil, nil, nil, fmt.Errorf("broker %s cannot kill a leader", e.Broker.Kind)
	}
	if a, offsets, t, err = setupTxn(ctx, e, 3, 0); err != nil {
		return
	}
	if err = want("stage", t.EnlistAndAck(ctx, kip1289.AckAccept, a.Tags(), offsets...), nil); err != nil {
		return
	}
	if restart, err = e.Broker.KillLeader(ctx, e.input, 0, spareForCommit(e, t), with); err != nil {
		err = fmt.Errorf("kill the leader: %w", err)
	}
	return
}

// joinAfterKill joins member b, retrying: a seed broker may be the dead one.
func joinAfterKill(ctx context.Context, e *Env) (b *Member, err error) {
	err = Eventually(ctx, 30*time.Second, func() (err error) { b, err = e.Join(ctx, "b"); return err })
	return b, err
}

// materializedThroughReturn: offsets are finalized at the new leader, and
// the killed leader, back on its data, hands out none of them.
func materializedThroughReturn(ctx context.Context, e *Env, b *Member, offsets []int64, restart func(context.Context) error) error {
	if err := checkMaterialized(ctx, e, b, offsets); err != nil {
		return err
	}
	if err := restart(ctx); err != nil {
		return fmt.Errorf("restart the killed leader: %w", err)
	}
	got, err := b.PollFor(ctx, 3*time.Second)
	if err != nil {
		return err
	}
	return noneRedelivered(got, offsets, "after the commit and the old leader's return")
}

// noneRedelivered: no record of got is one of offsets (when says at what
// point of the case they must not come back).
func noneRedelivered(got []*shareconsumer.Record, offsets []int64, when string) error {
	for _, r := range got {
		if slices.Contains(offsets, r.Offset) {
			return fmt.Errorf("offset %d delivered again (delivery %d) %s", r.Offset, r.DeliveryCount, when)
		}
	}
	return nil
}

// stageRestartAndOutwaitLock stages a's records, restarts the broker (the
// share-partition loads again, as at a new leader) and lets member b poll
// past the records' lock: what b gets is what the lock policy let go across
// the load.
func stageRestartAndOutwaitLock(ctx context.Context, e *Env) (a *Member, t *Txn, offsets, bGot []int64, err error) {
	if a, t, offsets, err = stageAndRestart(ctx, e); err != nil {
		return
	}
	b, err := e.Join(ctx, "b")
	if err != nil {
		return
	}
	recs, err := b.PollFor(ctx, e.Broker.Settings.Lock+4*time.Second)
	for _, r := range recs {
		if slices.Contains(offsets, r.Offset) && !slices.Contains(bGot, r.Offset) {
			bGot = append(bGot, r.Offset)
		}
	}
	slices.Sort(bGot)
	return
}

// Under hold a pending record stays with its transaction across the load:
// nobody gets it, and the commit materializes it.
func pendingLockHoldAcrossRestart(ctx context.Context, e *Env) error {
	a, t, offsets, bGot, err := stageRestartAndOutwaitLock(ctx, e)
	if err != nil {
		return err
	}
	return heldThenCommitted(ctx, e, a, t, offsets, bGot, " after the restart")
}

// Under expire the brokers differ (findingLockAcross): the reference broker
// restores a pending record with its lock's start, so the lock has run out
// and b gets the records (the KIP's hazard, as without a restart); Kafka's
// leader restores the entry with no lock, held until its marker, when its
// share coordinator restarted with it (one broker), and b gets them as on
// the reference broker when the coordinator lived on elsewhere (three
// brokers: FINDINGS 26). Both are allowed: all of the records or none, never
// some; either way the commit finalizes them.
func pendingLockExpireAcrossRestart(ctx context.Context, e *Env) error {
	a, t, offsets, bGot, err := stageRestartAndOutwaitLock(ctx, e)
	if err != nil {
		return err
	}
	if len(bGot) > 0 && !slices.Equal(bGot, offsets) {
		return fmt.Errorf("expire (%s): member b acquired %v after the restart, want all of %v (the lock ran out) or none (held until the marker)",
			e.Broker.Kind, bGot, offsets)
	}
	if e.Broker.Kind == Reference && len(bGot) == 0 {
		return fmt.Errorf("expire (%s): member b acquired nothing after the restart, want %v: the reference broker restores each lock's start", e.Broker.Kind, offsets)
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

// While the acks are pending across the restart nobody gets the records; the
// commit after the share-partition loaded again materializes them (the
// pending set was persisted, restored as pending, settled by the live marker).
func restartThenCommit(ctx context.Context, e *Env) error {
	a, t, offsets, err := stageAndRestart(ctx, e)
	if err != nil {
		return err
	}
	recs, err := a.PollFor(ctx, 3*time.Second) // loads the share-partition again
	if err != nil {
		return err
	}
	if err := noneRedelivered(recs, offsets, "while its ack was pending across the restart"); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

// The commit's marker reaches the partition before anyone loads the
// share-partition again; the load finds the outcome (Kafka: in the log, from
// the persisted stage offset) and materializes the acks.
func restartCommitBeforeLoad(ctx context.Context, e *Env) error {
	a, t, offsets, err := stageAndRestart(ctx, e)
	if err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

// An abort after the restart returns the records: they are delivered again.
func restartThenAbort(ctx context.Context, e *Env) error {
	a, t, offsets, err := stageAndRestart(ctx, e)
	if err != nil {
		return err
	}
	if _, err := a.PollFor(ctx, time.Second); err != nil {
		return err
	}
	if err := t.Abort(ctx); err != nil {
		return fmt.Errorf("abort: %w", err)
	}
	return checkRedelivered(ctx, a, offsets)
}

// checkRedelivered: offsets are delivered again, as delivery 2: a releases
// them if they came back to it (the reference broker returns a record to its
// holder while its lock runs), or acquires them if they came back AVAILABLE (a
// restored entry has no holder).
func checkRedelivered(ctx context.Context, a *Member, offsets []int64) error {
	var got []*shareconsumer.Record
	err := Eventually(ctx, 20*time.Second, func() error {
		_ = a.PlainAck(ctx, shareconsumer.Release, offsets...)
		recs, err := a.PollFor(ctx, 500*time.Millisecond)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if slices.Contains(offsets, r.Offset) && !slices.ContainsFunc(got, func(g *shareconsumer.Record) bool { return g.Offset == r.Offset }) {
				got = append(got, r)
			}
		}
		if len(got) < len(offsets) {
			return fmt.Errorf("delivered again: %v of %v", offsetsOf(got), offsets)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("records not returned: %w", err)
	}
	for _, r := range got {
		if r.DeliveryCount != 2 {
			return fmt.Errorf("offset %d came back as delivery %d, want 2", r.Offset, r.DeliveryCount)
		}
	}
	return nil
}

// The workload's own Sender (the native realization's path: negotiation,
// AddShareAcksToTxn, TxnShareAcknowledge routed by the negotiated version: to
// the share coordinator on v0, to the partition leader on v1) stages acks a
// commit materializes.
func workloadSenderRoutes(ctx context.Context, e *Env) error {
	a, offsets, t, err := setupTxn(ctx, e, 3, 0)
	if err != nil {
		return err
	}
	sender, err := kip1289.NewSender(t.cl, e.rpc.keys)
	if err != nil {
		return err
	}
	acks := kip1289.ShareAcknowledgements{{Topic: e.input, Partition: 0}: {{FirstOffset: offsets[0], LastOffset: offsets[len(offsets)-1], AckType: kip1289.AckAccept}}}
	md := kip1289.ShareGroupMetadata{GroupID: e.group, MemberID: a.c.MemberID(), GenerationID: a.c.MemberEpoch()}
	if err := want("Sender.SendShareAcksToTransaction", sender.SendShareAcksToTransaction(ctx, acks, md), nil); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return checkMaterialized(ctx, e, a, offsets)
}

// refusalSurvivesASiblingsRetry: one TxnShareAcknowledge attempt answers one
// share-partition with a refusal and another with a retriable error, and the
// workload's Sender must fail the send naming the refused one (FINDINGS 27:
// it resent only the other, whose success hid the refusal, and the loop
// committed outputs whose acks no broker held). The Sender learns the input
// partition's leader in a first transaction; the leadership moves (the old
// leader stays up, a follower now) and the member acquires its remaining
// records at the new leader; the second transaction acks them (sent to the old
// leader first: NOT_LEADER_OR_FOLLOWER, then to the new one) with a partition
// of a topic nobody in the group fetches (refused at once).
func refusalSurvivesASiblingsRetry(ctx context.Context, e *Env) error {
	if e.Broker.MoveLeader == nil {
		return fmt.Errorf("broker %s cannot move a leader", e.Broker.Kind)
	}
	a, offsets, err := setup(ctx, e, 6)
	if err != nil {
		return err
	}
	t, err := begin(ctx, e, "t", 0)
	if err != nil {
		return err
	}
	sender, err := kip1289.NewSender(t.cl, e.rpc.keys)
	if err != nil {
		return err
	}
	md := kip1289.ShareGroupMetadata{GroupID: e.group, MemberID: a.c.MemberID(), GenerationID: a.c.MemberEpoch()}
	accept := func(first, last int64) []kip1289.AcknowledgementBatch {
		return []kip1289.AcknowledgementBatch{{FirstOffset: first, LastOffset: last, AckType: kip1289.AckAccept}}
	}
	in := kip1289.TopicPartition{Topic: e.input, Partition: 0}
	if err := want("the first transaction's acks", sender.SendShareAcksToTransaction(ctx,
		kip1289.ShareAcknowledgements{in: accept(offsets[0], offsets[2])}, md), nil); err != nil {
		return err
	}
	if err := t.Commit(ctx); err != nil {
		return fmt.Errorf("commit the first transaction: %w", err)
	}
	if err := e.Broker.MoveLeader(ctx, e.input, 0); err != nil {
		return fmt.Errorf("move the input's leader: %w", err)
	}
	rest := offsets[3:]
	if _, err := a.Acquire(ctx, rest, 40*time.Second); err != nil {
		return fmt.Errorf("the member at the new leader: %w", err)
	}
	unfetched, err := e.UnfetchedTopic(ctx)
	if err != nil {
		return err
	}
	if err := t.Begin(ctx); err != nil {
		return err
	}
	md.GenerationID = a.c.MemberEpoch()
	refusedTP := kip1289.TopicPartition{Topic: unfetched, Partition: 0}
	err = sender.SendShareAcksToTransaction(ctx, kip1289.ShareAcknowledgements{
		in: accept(rest[0], rest[len(rest)-1]), refusedTP: accept(0, 0)}, md)
	var refused kip1289.PartitionErrors
	if !errors.As(err, &refused) || len(refused) != 1 || refused[0].TopicPartition != refusedTP {
		return fmt.Errorf("acks of %s (moved, held again) and %s (never fetched): %v, want %s alone refused",
			in, refusedTP, orOK(err), refusedTP)
	}
	return t.Abort(ctx)
}
