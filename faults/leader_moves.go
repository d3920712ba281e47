package faults

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// role is one partition whose leader holds something of a cell: its
// records (a data partition) or a coordinator's state for one of its keys.
type role struct {
	what      string // for the fault's events, e.g. "input/2", "share-state of input/2"
	topic     string
	partition int32
	// kind and key name a coordinator role, checked through Roles after a
	// move; empty for a plain data partition.
	kind cluster.CoordKind
	key  string
}

// moveLimit bounds one leadership move (a reassignment plus an election).
const moveLimit = time.Minute

// inputRoles lists the input partitions and, for each, the share-state
// partition holding its share-partition's state. Their failover releases
// the records acquired there (ORACLE.md "How records come back").
func inputRoles(ctx context.Context, a *admin, topo ctp.Topology) ([]role, error) {
	stateParts, err := a.coordinatorPartitions(ctx, kafkarole.ShareStateTopic)
	if err != nil {
		return nil, fmt.Errorf("find share-state partitions: %w", err)
	}
	var out []role
	for p := range topo.Partitions {
		what := fmt.Sprintf("input/%d", p)
		out = append(out, role{what: what, topic: topo.InputTopic, partition: p})
		key, err := a.shareStateKey(ctx, topo.Group, topo.InputTopic, p)
		if err != nil {
			return nil, err
		}
		out = append(out, role{what: "share-state of " + what, topic: kafkarole.ShareStateTopic,
			partition: kafkarole.CoordinatorPartition(key, stateParts), kind: cluster.CoordShareState, key: key})
	}
	return out, nil
}

// outputRoles lists the partitions a cell's transactions write: output and
// ledger. A coordinator writes the markers of a partition it leads itself
// locally, past any link a fault holds.
func outputRoles(ctx context.Context, a *admin, topo ctp.Topology) ([]role, error) {
	var out []role
	for _, t := range []struct{ name, what string }{{topo.OutputTopic, "output"}, {topo.LedgerTopic, "ledger"}} {
		n, err := a.partitionCount(ctx, t.name)
		if err != nil {
			return nil, err
		}
		for p := range int32(n) {
			out = append(out, role{what: fmt.Sprintf("%s/%d", t.what, p), topic: t.name, partition: p})
		}
	}
	return out, nil
}

// groupRole is the share group's coordinator.
func groupRole(ctx context.Context, a *admin, topo ctp.Topology) (role, error) {
	n, err := a.coordinatorPartitions(ctx, kafkarole.OffsetsTopic)
	if err != nil {
		return role{}, fmt.Errorf("find group coordinator partition: %w", err)
	}
	return role{what: "group coordinator", topic: kafkarole.OffsetsTopic, partition: kafkarole.CoordinatorPartition(topo.Group, n),
		kind: cluster.CoordGroup, key: topo.Group}, nil
}

// moveOff moves rs off node (moveRolesOff) and records it as the fault's
// preparation: action says why, attrs add what the fault is about. ended
// reports that the cell ended meanwhile: the fault stops without firing
// (UNKNOWN), and err is nil.
func moveOff(ctx context.Context, env Env, a *admin, node cluster.NodeID, rs []role, action string, attrs map[string]string) (moved []string, ended bool, err error) {
	began := time.Now()
	moved, err = moveRolesOff(ctx, env, a, node, rs)
	all := map[string]string{"action": action, "node": strconv.Itoa(int(node)), "moved_off": joinMoved(moved)}
	maps.Copy(all, attrs)
	prepared(env, began, all)
	if err != nil && ctx.Err() != nil {
		return moved, true, nil
	}
	return moved, false, err
}

// moveRolesOff makes other brokers than node hold every role in rs that
// node holds, and checks it: a leader by the metadata, a coordinator by
// asking for it. A share or group coordinator still on node after its
// computed partition moved (a Kafka that places keys differently) gets every
// partition of its topic that node leads moved off; a transaction
// coordinator is an error. It returns what it moved, as
// "what:from->to".
func moveRolesOff(ctx context.Context, env Env, a *admin, node cluster.NodeID, rs []role) ([]string, error) {
	roles := env.Cluster.(cluster.Roles)
	var others []cluster.NodeID
	for _, n := range env.Cluster.Nodes() {
		if n != node {
			others = append(others, n)
		}
	}
	if len(others) == 0 {
		return nil, fmt.Errorf("move roles off broker %d: no other broker", node)
	}
	next := env.Rand.IntN(len(others))
	var moved []string
	move := func(r role) error {
		leaders, err := a.leaders(ctx, r.topic)
		if err != nil {
			return err
		}
		if leaders[r.partition] != node {
			return nil
		}
		to := others[next%len(others)]
		next++
		mctx, cancel := context.WithTimeout(ctx, moveLimit)
		defer cancel()
		if err := roles.MoveLeader(mctx, r.topic, r.partition, to); err != nil {
			return fmt.Errorf("move %s off broker %d: %w", r.what, node, err)
		}
		moved = append(moved, fmt.Sprintf("%s:%d->%d", r.what, node, to))
		return nil
	}
	// The first pass decides every move in order (the draws stay the
	// seed's), then runs them at once: each is a reassignment and an
	// election of its own, and a shared fault moves every cell's roles,
	// a dozen moves that one after the other outlast a 1000-record load.
	type job struct {
		r  role
		to cluster.NodeID
	}
	var jobs []job
	for _, r := range rs {
		leaders, err := a.leaders(ctx, r.topic)
		if err != nil {
			return moved, err
		}
		if leaders[r.partition] != node {
			continue
		}
		jobs = append(jobs, job{r: r, to: others[next%len(others)]})
		next++
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mctx, cancel := context.WithTimeout(ctx, moveLimit)
			defer cancel()
			if err := roles.MoveLeader(mctx, j.r.topic, j.r.partition, j.to); err != nil {
				errs[i] = fmt.Errorf("move %s off broker %d: %w", j.r.what, node, err)
			}
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		if errs[i] == nil {
			moved = append(moved, fmt.Sprintf("%s:%d->%d", j.r.what, node, j.to))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return moved, err
	}
	for _, r := range rs {
		if r.kind == "" {
			continue
		}
		holder, err := coordinatorOf(ctx, roles, r)
		if err != nil {
			return moved, err
		}
		if holder != node {
			continue
		}
		if r.kind == cluster.CoordTransaction {
			// Clearing the transaction log's topic would move the
			// coordinator the fault is about.
			return moved, fmt.Errorf("move %s off broker %d: it is still there after %s/%d moved", r.what, node, r.topic, r.partition)
		}
		// Kafka placed the key elsewhere than computed: clear the whole topic.
		n, err := a.partitionCount(ctx, r.topic)
		if err != nil {
			return moved, err
		}
		for p := range int32(n) {
			if err := move(role{what: fmt.Sprintf("%s/%d", r.topic, p), topic: r.topic, partition: p}); err != nil {
				return moved, err
			}
		}
		if holder, err = coordinatorOf(ctx, roles, r); err != nil {
			return moved, err
		}
		if holder == node {
			return moved, fmt.Errorf("move %s off broker %d: it is still there after every partition of %s moved", r.what, node, r.topic)
		}
	}
	return moved, nil
}

func coordinatorOf(ctx context.Context, roles cluster.Roles, r role) (cluster.NodeID, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	n, err := roles.Coordinator(cctx, r.kind, r.key)
	if err != nil {
		return -1, fmt.Errorf("find %s: %w", r.what, err)
	}
	return n, nil
}

func joinMoved(moved []string) string {
	if len(moved) == 0 {
		return "none"
	}
	return strings.Join(moved, ",")
}
