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

// PointMarkersHeldAtLeader is where dataLeaderKillAfterEndTxn fires: a
// commit answered, its markers to an input partition's leader held, that
// leader killed (the catalog's evidence names it).
const PointMarkersHeldAtLeader = "markers-held-at-leader"

// dataLeaderKillAfterEndTxn kills a share-partition leader while a
// committed transaction's acks are pending there, for certain rather than
// by chance. Where the broker settles the acks (KIP-1289 built into Kafka),
// they stay pending at the input partition's leader L from
// TxnShareAcknowledge until the COMMIT marker reaches L; broker-kill and
// data-leader-kill meet that window only when the load happens to have a
// transaction open at the kill (docs/KIP1289-ON-KAFKA.md).
//
// It draws an input partition and its leader L, moves off L every role
// whose failover is another row's (the share-state partitions, the group
// coordinator, the transaction coordinators of the cell's ids, so that
// every marker to L crosses a link), holds WriteTxnMarkers on every link
// into L, waits until a transaction of the cell committed with its markers
// to L held (one naming an input partition: acks pending at L; a commit of
// outputs only is let go and the hold set again, a few times), SIGKILLs L,
// lets go of the hold once L's connections are gone (the coordinator
// retries its markers to the partitions' new leaders), and restarts L. The new leader must settle the acks exactly once.
func dataLeaderKillAfterEndTxn(ctx context.Context, env Env) error {
	a, err := newAdmin(env.Cluster)
	if err != nil {
		return err
	}
	defer a.close()
	api, ls, _ := toxiAPIOf(env.Cluster)
	roles := env.Cluster.(cluster.Roles)

	p := int32(env.Rand.IntN(int(env.Topology.Partitions)))
	target := fmt.Sprintf("%s/%d", env.Topology.InputTopic, p)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	leader, err := roles.Coordinator(cctx, cluster.CoordLeader, target)
	cancel()
	if err != nil {
		return fmt.Errorf("find leader of %s: %w", target, err)
	}
	rs, err := inputRoles(ctx, a, env.Topology)
	if err != nil {
		return err
	}
	var off []role
	for _, r := range rs {
		if r.kind == cluster.CoordShareState {
			off = append(off, r)
		}
	}
	g, err := groupRole(ctx, a, env.Topology)
	if err != nil {
		return err
	}
	txnRoles, err := txnCoordinatorRoles(ctx, a, roles, a.cellTxnIDs(ctx, env))
	if err != nil {
		return err
	}
	off = append(off, txnRoles...)
	moved, ended, err := moveOff(ctx, env, a, leader, append(off, g),
		"coordinators moved off the input partition's leader", map[string]string{"leader_of": target})
	if ended || err != nil {
		return err
	}
	inputsOnLeader, err := a.ledBy(ctx, env.Topology.InputTopic, leader)
	if err != nil {
		return err
	}
	if !slices.Contains(inputsOnLeader, target) {
		return fmt.Errorf("the leader of %s moved off broker %d while coordinators moved off it", target, leader)
	}

	held := heldLinks(ls, func(l cluster.Link) bool { return l.To == leader && l.From != leader })
	if len(held) == 0 {
		return fmt.Errorf("hold markers to broker %d: no links from other brokers", leader)
	}
	h := markerHold{api: api, links: held, fault: "leader-markers", cell: env.Topology.Prefix}
	// A held commit that wrote only outputs at the leader is let go and the
	// hold set again, until one with acks there is caught; the last attempt
	// takes any commit (explicit and ledger cells have no other kind).
	settlesAcks := func(parts []string) bool {
		return slices.ContainsFunc(parts, func(p string) bool { return slices.Contains(inputsOnLeader, p) })
	}
	commit, caught, err := h.catch(ctx, a, env, leaderHoldAttempts, settlesAcks)
	if !caught {
		return err
	}

	var pending []string
	for _, part := range strings.Split(commit.partitions, ",") {
		if slices.Contains(inputsOnLeader, part) {
			pending = append(pending, part)
		}
	}
	killedAt := time.Now()
	if err := env.Cluster.(cluster.Processes).Kill(context.WithoutCancel(ctx), leader); err != nil {
		h.remove(ctx)
		return fmt.Errorf("kill broker %d: %w", leader, err)
	}
	fired(env, PointMarkersHeldAtLeader, killedAt, commit.attrs(map[string]string{
		"node": strconv.Itoa(int(leader)), "action": "kill -9 of an input partition's leader with a commit's WriteTxnMarkers to it held",
		"leader_of": target, MarkersOfInputsAttr: strings.Join(pending, ","),
		"held_links": strings.Join(held, ","), "moved_off": joinMoved(moved),
	}))
	h.letGo(ctx, env)
	sleepCtx(ctx, downTime)
	if err := restartBroker(ctx, env, leader); err != nil {
		return err
	}
	healed(env, time.Now(), completion(ctx, a, commit))
	return nil
}

// txnCoordinatorRoles are the transaction coordinators of ids. Each is
// asked for first: the fault may act before the cell's workers initialized
// their producers, and Kafka creates the transaction log on the first
// FindCoordinator for a transactional id.
func txnCoordinatorRoles(ctx context.Context, a *admin, roles cluster.Roles, ids []string) ([]role, error) {
	for _, id := range ids {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := roles.Coordinator(cctx, cluster.CoordTransaction, id)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("find transaction coordinator of %s: %w", id, err)
		}
	}
	n, err := a.coordinatorPartitions(ctx, kafkarole.TxnStateTopic)
	if err != nil {
		return nil, fmt.Errorf("find transaction coordinators: %w", err)
	}
	var out []role
	for _, id := range ids {
		out = append(out, txnCoordinatorRole(id, kafkarole.CoordinatorPartition(id, n)))
	}
	return out, nil
}

// leaderHoldAttempts bounds how often dataLeaderKillAfterEndTxn lets a
// held commit go and holds again.
const leaderHoldAttempts = 6

// MarkersOfInputsAttr is the fault-fired attribute of
// dataLeaderKillAfterEndTxn naming the input partitions among the held
// markers' (comma-separated): where the acks of the held commit were
// pending when their leader died. Empty when the held commit acked nothing
// through the broker (explicit and ledger cells; a native cell whose
// commits at the leader all wrote only outputs there).
const MarkersOfInputsAttr = "input_partitions_held"
