package faults

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// PointStrandedTxnMoved is stranded-txn-leader-move's firing: every
// partition the stranded transaction's acks are staged at has a new leader,
// and the transaction is still open.
const PointStrandedTxnMoved = "stranded-transaction-leaders-moved"

// Bounds of stranded-txn-leader-move's steps.
const (
	// strandedAfter: a cell's transaction still Ongoing this long after it
	// began is stranded; a live worker's lasts well under a second on an
	// idle machine, and was seen Ongoing for 4.2 s on CI's (two clusters
	// on two cores), so 6 s and strandedConfirm more.
	strandedAfter = 6 * time.Second
	// strandedWait bounds the wait for the stranded transaction, and then
	// for its end.
	strandedWait = 2 * time.Minute
)

// strandedTxnLeaderMove is the failover the catalog lacked: a transaction
// with acks in it whose worker died (the row's worker fault: SIGKILL after
// the acks, the replacement on a fresh transactional id), so that only the
// transaction coordinator's timeout ends it, and while it waits the leader
// of every partition its acks are staged at moves to another broker (native:
// the input partitions AddShareAcksToTxn enlisted; the ledger: its ledger
// partition). The timeout's ABORT markers then reach the new leaders, which
// must have restored the pending acks and now release them: each record
// comes back once. It fires once the moves are done and the transaction is
// still open (else it records why and does not fire: UNKNOWN), and heals
// when the coordinator ended the transaction.
func strandedTxnLeaderMove(ctx context.Context, env Env) error {
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	began := time.Now()
	txn, ok := waitStranded(ctx, a, env)
	if !ok {
		return nil // the cell ended first: not fired
	}
	staged := stagedPartitions(txn, env.Topology)
	attrs := map[string]string{"transactional_id": txn.TxnID, "producer_id": strconv.FormatInt(txn.ProducerID, 10),
		"producer_epoch": strconv.Itoa(int(txn.ProducerEpoch)), "open_for": time.Since(time.UnixMilli(txn.StartTimestamp)).Round(time.Millisecond).String(),
		"transaction_timeout": (time.Duration(txn.TimeoutMillis) * time.Millisecond).String()}
	if len(staged) == 0 {
		attrs["action"] = "not moved: the stranded transaction has no input or ledger partition (no acks staged at a partition leader)"
		prepared(env, began, attrs)
		return nil
	}
	moved, err := moveStaged(ctx, env, a, staged)
	attrs["moved"] = joinMoved(moved)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	at := time.Now()
	now, err := a.describeTxn(ctx, txn.TxnID)
	if err != nil || !sameOpenTxn(now, txn) {
		attrs["action"] = "moved too late: the transaction had ended before every move was done"
		prepared(env, began, attrs)
		return nil
	}
	attrs["action"] = "moved the leaders of the stranded transaction's staged acks"
	fired(env, PointStrandedTxnMoved, at, attrs)
	return waitTxnEnded(ctx, env, a, txn)
}

// strandedConfirm is how long a transaction Ongoing past strandedAfter
// must stay so, the same one, before it counts as stranded: under a loaded
// machine a live worker's transaction can be Ongoing for 3 s and then
// commit (CI, two clusters on two cores: the fault moved a live worker's
// leaders, which then committed in PrepareCommit).
const strandedConfirm = time.Second

// waitStranded waits until one of the cell's transactions has been Ongoing
// for strandedAfter and stayed so, the same transaction, for
// strandedConfirm more, and returns the oldest such (false: the cell ended,
// or none came within strandedWait).
func waitStranded(ctx context.Context, a *admin, env Env) (kadm.DescribedTransaction, bool) {
	deadline := time.Now().Add(strandedWait)
	type seen struct {
		d     kadm.DescribedTransaction
		since time.Time
	}
	old := map[string]seen{}
	for time.Now().Before(deadline) {
		ids := a.cellTxnIDs(ctx, env)
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ds, _ := a.adm.DescribeTransactions(dctx, ids...)
		cancel()
		now := map[string]seen{}
		var found *kadm.DescribedTransaction
		for _, d := range ds.Sorted() {
			if d.Err != nil || d.State != "Ongoing" || d.StartTimestamp <= 0 || time.Since(time.UnixMilli(d.StartTimestamp)) < strandedAfter {
				continue
			}
			s := seen{d: d, since: time.Now()}
			if prev, ok := old[d.TxnID]; ok && prev.d.ProducerID == d.ProducerID && prev.d.ProducerEpoch == d.ProducerEpoch && prev.d.StartTimestamp == d.StartTimestamp {
				s.since = prev.since
				if time.Since(s.since) >= strandedConfirm && (found == nil || d.StartTimestamp < found.StartTimestamp) {
					found = &d
				}
			}
			now[d.TxnID] = s
		}
		if found != nil {
			return *found, true
		}
		old = now
		if !sleepCtx(ctx, 250*time.Millisecond) {
			break
		}
	}
	return kadm.DescribedTransaction{}, false
}

// stagedPartition is one partition a stranded transaction's acks are at.
type stagedPartition struct {
	what      string // "input/2", "ledger/0"
	topic     string
	partition int32
}

// stagedPartitions lists the input and ledger partitions in txn.
func stagedPartitions(txn kadm.DescribedTransaction, topo ctp.Topology) []stagedPartition {
	var out []stagedPartition
	for _, t := range []struct{ name, what string }{{topo.InputTopic, "input"}, {topo.LedgerTopic, "ledger"}} {
		ps := txn.Topics[t.name]
		keys := make([]int32, 0, len(ps))
		for p := range ps {
			keys = append(keys, p)
		}
		slices.Sort(keys)
		for _, p := range keys {
			out = append(out, stagedPartition{what: fmt.Sprintf("%s/%d", t.what, p), topic: t.name, partition: p})
		}
	}
	return out
}

// moveStaged moves the leader of each staged partition to another broker
// (the seed's draw), returning "what:from->to" for each.
func moveStaged(ctx context.Context, env Env, a *admin, staged []stagedPartition) ([]string, error) {
	roles := env.Cluster.(cluster.Roles)
	var moved []string
	for _, s := range staged {
		leaders, err := a.leaders(ctx, s.topic)
		if err != nil {
			return moved, err
		}
		from, ok := leaders[s.partition]
		if !ok {
			return moved, fmt.Errorf("move the leader of %s: it has none", s.what)
		}
		var others []cluster.NodeID
		for _, n := range env.Cluster.Nodes() {
			if n != from {
				others = append(others, n)
			}
		}
		if len(others) == 0 {
			return moved, fmt.Errorf("move the leader of %s: no other broker than %d", s.what, from)
		}
		to := others[env.Rand.IntN(len(others))]
		mctx, cancel := context.WithTimeout(ctx, moveLimit)
		err = roles.MoveLeader(mctx, s.topic, s.partition, to)
		cancel()
		if err != nil {
			return moved, fmt.Errorf("move the leader of %s from %d to %d: %w", s.what, from, to, err)
		}
		moved = append(moved, fmt.Sprintf("%s:%d->%d", s.what, from, to))
	}
	return moved, nil
}

// sameOpenTxn: now is still txn, open (the same producer id and epoch,
// Ongoing).
func sameOpenTxn(now, txn kadm.DescribedTransaction) bool {
	return now.State == "Ongoing" && now.ProducerID == txn.ProducerID && now.ProducerEpoch == txn.ProducerEpoch &&
		now.StartTimestamp == txn.StartTimestamp
}

// waitTxnEnded heals once the coordinator ended the stranded transaction
// (its timeout's abort; the heal names the state it saw).
func waitTxnEnded(ctx context.Context, env Env, a *admin, txn kadm.DescribedTransaction) error {
	deadline := time.Now().Add(strandedWait)
	for time.Now().Before(deadline) {
		now, err := a.describeTxn(ctx, txn.TxnID)
		if err == nil && !sameOpenTxn(now, txn) {
			healed(env, time.Now(), map[string]string{"action": "the coordinator ended the stranded transaction",
				"state": now.State + " epoch " + strconv.Itoa(int(now.ProducerEpoch))})
			return nil
		}
		if !sleepCtx(ctx, 100*time.Millisecond) {
			return nil
		}
	}
	return fmt.Errorf("stranded transaction %s still open %v after its leaders moved", txn.TxnID, strandedWait)
}
