package faults

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
)

// answerGrace lets the EndTxn response leave the coordinator: Kafka queues
// it before it sends the markers, so it is on its way when a marker reaches
// the toxic.
const answerGrace = 500 * time.Millisecond

// coordinatorCrashAfterEndTxn is ORACLE.md case 4. For one worker's
// transactional id it finds the transaction coordinator's broker C and
// moves off C every leadership whose failover would release records or
// write markers locally (the input partitions and their share-state
// partitions, the group coordinator, the output and ledger partitions).
// Then it holds WriteTxnMarkers on every link from C to another broker,
// waits until a transaction of the cell committed (EndTxn answered,
// PREPARE_COMMIT durable, its markers held), SIGKILLs C, waits until the
// held markers were discarded with C's connections, removes the hold and
// restarts C. Another broker takes over C's transaction log and must
// complete the commit.
func coordinatorCrashAfterEndTxn(ctx context.Context, env Env) error {
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	api, ls, _ := toxiAPIOf(env.Cluster)
	roles := env.Cluster.(cluster.Roles)

	ids := a.cellTxnIDs(ctx, env)
	txnID := ids[env.Rand.IntN(len(ids))]
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	coord, err := roles.Coordinator(cctx, cluster.CoordTransaction, txnID)
	cancel()
	if err != nil {
		return fmt.Errorf("find transaction coordinator of %s: %w", txnID, err)
	}
	rs, err := inputRoles(ctx, a, env.Topology)
	if err != nil {
		return err
	}
	out, err := outputRoles(ctx, a, env.Topology)
	if err != nil {
		return err
	}
	g, err := groupRole(ctx, a, env.Topology)
	if err != nil {
		return err
	}
	others, sharing, err := otherTxnRoles(ctx, a, txnID, ids)
	if err != nil {
		return err
	}
	moved, ended, err := moveOff(ctx, env, a, coord, slices.Concat(rs, []role{g}, out, others),
		"roles moved off the coordinator's broker", map[string]string{"transactional_id": txnID})
	if ended || err != nil {
		return err
	}
	cctx, cancel = context.WithTimeout(ctx, 30*time.Second)
	still, err := roles.Coordinator(cctx, cluster.CoordTransaction, txnID)
	cancel()
	if err != nil || still != coord {
		return fmt.Errorf("transaction coordinator of %s moved from broker %d to %d while other roles moved off it (%v)", txnID, coord, still, err)
	}
	held := heldLinks(ls, func(l cluster.Link) bool { return l.From == coord && l.To != coord })
	if len(held) == 0 {
		return fmt.Errorf("hold markers of broker %d: no links to other brokers", coord)
	}
	h := markerHold{api: api, links: held, fault: "case4", cell: env.Topology.Prefix}
	commit, caught, err := h.catch(ctx, a, env, holdAttempts, nil)
	if !caught {
		return err
	}

	sleepCtx(ctx, answerGrace)
	state := "unknown"
	if d, err := a.describeTxn(ctx, commit.txnID); err == nil {
		state = d.State
	}
	killedAt := time.Now()
	if err := env.Cluster.(cluster.Processes).Kill(context.WithoutCancel(ctx), coord); err != nil {
		h.remove(ctx)
		return fmt.Errorf("kill coordinator broker %d: %w", coord, err)
	}
	fired(env, PointAfterEndTxn, killedAt, commit.attrs(map[string]string{
		"node": strconv.Itoa(int(coord)), "action": "kill -9 of the transaction coordinator with WriteTxnMarkers held",
		"txn_state_before_kill": state, "held_links": strings.Join(held, ","), "moved_off": joinMoved(moved),
		"chosen_transactional_id": txnID, "coordinator_shared_with": strings.Join(sharing, ","),
	}))
	h.letGo(ctx, env)
	if err := restartBroker(ctx, env, coord); err != nil {
		return err
	}
	healed(env, time.Now(), completion(ctx, a, commit))
	return nil
}

// otherTxnRoles lists the transaction coordinators of the cell's other
// workers, so that they can move off the broker that will be killed: a
// worker whose coordinator dies with it has its open transaction aborted,
// which is a broker kill for that worker, not case 4. A worker whose id
// hashes to the chosen id's own partition cannot be separated from it;
// sharing names those.
func otherTxnRoles(ctx context.Context, a *admin, chosen string, ids []string) (others []role, sharing []string, err error) {
	n, err := a.coordinatorPartitions(ctx, kafkarole.TxnStateTopic)
	if err != nil {
		return nil, nil, fmt.Errorf("find transaction coordinators: %w", err)
	}
	own := kafkarole.CoordinatorPartition(chosen, n)
	for _, id := range ids {
		if id == chosen {
			continue
		}
		p := kafkarole.CoordinatorPartition(id, n)
		if p == own {
			sharing = append(sharing, id)
			continue
		}
		others = append(others, txnCoordinatorRole(id, p))
	}
	return others, sharing, nil
}

// txnCoordinatorRole is the transaction coordinator of id, which leads
// partition p of the transaction log.
func txnCoordinatorRole(id string, p int32) role {
	return role{what: "transaction coordinator of " + id, topic: kafkarole.TxnStateTopic, partition: p,
		kind: cluster.CoordTransaction, key: id}
}

// PointAfterEndTxn is where case 4 fires: EndTxn answered, the markers held,
// the coordinator killed (the catalog's evidence names it).
const PointAfterEndTxn = "after-endtxn"
