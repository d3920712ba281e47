package conformance

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
)

// The failovers a case asks of its broker, made from any cluster of the
// suite's backends (docker, or the external backend's hooks): each is nil,
// with why, where the cluster cannot do it, so the case is N/A instead of
// failing.

// Failovers are a cluster's restart, kill and leader move as the cases take
// them, or why each is missing.
type Failovers struct {
	Restart    func(ctx context.Context, topic string, partition int32) error
	KillLeader func(ctx context.Context, topic string, partition int32, spare, with []Role) (func(context.Context) error, error)
	MoveLeader func(ctx context.Context, topic string, partition int32) error
	// Lacks says, for each one that is nil, why.
	Lacks map[Need]string
}

// FailoversOf makes c's failovers: a restart needs the cluster's Restart of
// a running broker, a kill its Kill and Restart of a killed one and its
// roles, a leader move its roles and a second broker.
func FailoversOf(c cluster.Cluster) Failovers {
	f := Failovers{Lacks: map[Need]string{}}
	proc, isProc := c.(cluster.Processes)
	roles, isRoles := c.(cluster.Roles)
	switch {
	case !isProc:
		f.Lacks[NeedRestart] = c.Name() + " cannot restart a broker"
	case cluster.Lacks(c, cluster.CapRestart) != "":
		f.Lacks[NeedRestart] = cluster.Lacks(c, cluster.CapRestart)
	case !isRoles:
		f.Lacks[NeedRestart] = c.Name() + " cannot say which broker leads a partition"
	default:
		f.Restart = func(ctx context.Context, topic string, partition int32) error {
			leader, err := roles.Coordinator(ctx, cluster.CoordLeader, fmt.Sprintf("%s/%d", topic, partition))
			if err != nil {
				return err
			}
			return proc.Restart(ctx, leader)
		}
	}
	switch {
	case !isProc || !isRoles:
		f.Lacks[NeedKill] = c.Name() + " cannot kill a partition's leader"
	case cluster.Lacks(c, cluster.CapProcesses) != "":
		f.Lacks[NeedKill] = cluster.Lacks(c, cluster.CapProcesses)
	case len(c.Nodes()) < 3:
		f.Lacks[NeedKill] = fmt.Sprintf("%d brokers: a leader kill with its coordinators spared needs 3", len(c.Nodes()))
	default:
		f.KillLeader = killLeader(c, proc, roles)
	}
	switch {
	case !isRoles:
		f.Lacks[NeedMove] = c.Name() + " cannot move a partition's leadership"
	case len(c.Nodes()) < 2:
		f.Lacks[NeedMove] = "one broker: no other to lead"
	default:
		f.MoveLeader = moveLeader(c, roles)
	}
	return f
}

// killLeader SIGKILLs the leader of a partition and returns once another
// broker leads it (the controller fences the dead one after its session
// timeout), with what restarts the killed broker. A leader that holds one of
// spare's roles hands the partition to a broker that holds none first (three
// brokers, two roles: there always is one); then each coordinator role of
// with is moved onto it (its internal topic's partition led there), and the
// kill waits until the cluster says it holds them.
func killLeader(c cluster.Cluster, proc cluster.Processes, roles cluster.Roles) func(ctx context.Context, topic string, partition int32, spare, with []Role) (func(context.Context) error, error) {
	return func(ctx context.Context, topic string, partition int32, spare, with []Role) (func(context.Context) error, error) {
		key := fmt.Sprintf("%s/%d", topic, partition)
		spared := map[cluster.NodeID]bool{}
		for _, r := range spare {
			n, err := roles.Coordinator(ctx, r.Kind, r.Key)
			if err != nil {
				return nil, err
			}
			spared[n] = true
		}
		old, err := roles.Coordinator(ctx, cluster.CoordLeader, key)
		if err != nil {
			return nil, err
		}
		if spared[old] {
			for _, n := range c.Nodes() {
				if !spared[n] {
					if err := roles.MoveLeader(ctx, topic, partition, n); err != nil {
						return nil, fmt.Errorf("move %s off broker %d: %w", key, old, err)
					}
					old = n
					break
				}
			}
		}
		for _, r := range with {
			if err := moveRoleOnto(ctx, c, roles, r, old); err != nil {
				return nil, err
			}
		}
		for _, r := range spare {
			if n, err := roles.Coordinator(ctx, r.Kind, r.Key); err != nil || n == old {
				return nil, fmt.Errorf("%s %s is on the broker to kill (%d) after the moves: %v", r.Kind, r.Key, old, err)
			}
		}
		if err := proc.Kill(ctx, old); err != nil {
			return nil, err
		}
		restart := func(ctx context.Context) error { return proc.Restart(ctx, old) }
		err = Eventually(ctx, time.Minute, func() error {
			now, err := roles.Coordinator(ctx, cluster.CoordLeader, key)
			if err == nil && now == old {
				err = fmt.Errorf("%s still led by the killed broker %d", key, old)
			}
			return err
		})
		return restart, err
	}
}

// moveLeader hands a partition's leadership to the next broker after its
// leader.
func moveLeader(c cluster.Cluster, roles cluster.Roles) func(ctx context.Context, topic string, partition int32) error {
	return func(ctx context.Context, topic string, partition int32) error {
		old, err := roles.Coordinator(ctx, cluster.CoordLeader, fmt.Sprintf("%s/%d", topic, partition))
		if err != nil {
			return err
		}
		nodes := c.Nodes()
		next := nodes[(slices.Index(nodes, old)+1)%len(nodes)]
		return roles.MoveLeader(ctx, topic, partition, next)
	}
}

// moveRoleOnto makes node hold a coordinator role: the leader of the
// partition of its internal topic that holds the key (the topic's partition
// count as the cluster's metadata gives it), and waits until FindCoordinator
// says so.
func moveRoleOnto(ctx context.Context, c cluster.Cluster, roles cluster.Roles, r Role, node cluster.NodeID) error {
	topic, _, ok := kafkarole.CoordinatorTopic(r.Kind)
	if !ok {
		return fmt.Errorf("cannot move a %s role onto a broker", r.Kind)
	}
	cl, err := cluster.NewClient(c)
	if err != nil {
		return err
	}
	md, err := kadm.NewClient(cl).Metadata(ctx, topic)
	cl.Close()
	if err == nil {
		err = md.Topics[topic].Err
	}
	if err != nil {
		return fmt.Errorf("partitions of %s: %w", topic, err)
	}
	n := len(md.Topics[topic].Partitions)
	if n == 0 {
		return fmt.Errorf("partitions of %s: none in the metadata", topic)
	}
	p := kafkarole.CoordinatorPartition(r.Key, n)
	if err := roles.MoveLeader(ctx, topic, p, node); err != nil {
		return fmt.Errorf("move %s/%d (%s %s) onto broker %d: %w", topic, p, r.Kind, r.Key, node, err)
	}
	return Eventually(ctx, 30*time.Second, func() error {
		now, err := roles.Coordinator(ctx, r.Kind, r.Key)
		if err == nil && now != node {
			err = fmt.Errorf("%s %s on broker %d, not %d", r.Kind, r.Key, now, node)
		}
		return err
	})
}
