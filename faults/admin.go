package faults

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
)

// admin is a fault's own client of the cluster: what it needs to look at
// (metadata, transactions) while it acts, apart from the runner's clients.
type admin struct {
	cl  *kgo.Client
	adm *kadm.Client
}

func newAdmin(c cluster.Cluster) (*admin, error) {
	cl, err := cluster.NewClient(c, kgo.ClientID("sharechaos-fault"),
		kgo.DialTimeout(3*time.Second), kgo.RequestTimeoutOverhead(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("create fault admin client: %w", err)
	}
	return &admin{cl: cl, adm: kadm.NewClient(cl)}, nil
}

func (a *admin) close() { a.cl.Close() }

// brokerAddr is the address clients dial for node (its proxy), from the
// metadata: what a raw connection to that broker must use.
func (a *admin) brokerAddr(ctx context.Context, node cluster.NodeID) (string, error) {
	m, err := a.adm.BrokerMetadata(ctx)
	if err != nil {
		return "", fmt.Errorf("find address of broker %d: %w", node, err)
	}
	for _, b := range m.Brokers {
		if b.NodeID == int32(node) {
			return fmt.Sprintf("%s:%d", b.Host, b.Port), nil
		}
	}
	return "", fmt.Errorf("find address of broker %d: not in the metadata", node)
}

// describeTxn returns the coordinator's view of a transactional id.
func (a *admin) describeTxn(ctx context.Context, txnID string) (kadm.DescribedTransaction, error) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ds, err := a.adm.DescribeTransactions(rctx, txnID)
	if err != nil {
		return kadm.DescribedTransaction{}, fmt.Errorf("describe transaction %s: %w", txnID, err)
	}
	d, ok := ds[txnID]
	if !ok {
		return kadm.DescribedTransaction{}, fmt.Errorf("describe transaction %s: no answer", txnID)
	}
	if d.Err != nil {
		return d, fmt.Errorf("describe transaction %s: %w", txnID, d.Err)
	}
	return d, nil
}

// listedBy reports whether another broker than node lists node in its
// metadata (registered and unfenced): node's own view can be stale after it
// was cut off.
func (a *admin) listedBy(ctx context.Context, node cluster.NodeID, nodes []cluster.NodeID) bool {
	for _, other := range nodes {
		if other == node {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		resp, err := a.cl.Broker(int(other)).Request(rctx, kmsg.NewPtrMetadataRequest())
		cancel()
		if err != nil {
			continue
		}
		if slices.ContainsFunc(resp.(*kmsg.MetadataResponse).Brokers, func(b kmsg.MetadataResponseBroker) bool {
			return b.NodeID == int32(node)
		}) {
			return true
		}
	}
	return false
}

// underReplicated counts partitions (of every topic, internal ones
// included) whose ISR is smaller than their replica set, or that have no
// leader.
func (a *admin) underReplicated(ctx context.Context) (int, error) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m, err := a.adm.Metadata(rctx)
	if err != nil {
		return 0, fmt.Errorf("read metadata: %w", err)
	}
	n := 0
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			if p.Leader < 0 || len(p.ISR) < len(p.Replicas) {
				n++
			}
		}
	}
	return n, nil
}

// waitFullyReplicated waits until no partition is under-replicated, or limit
// passed; it returns how many still are.
func (a *admin) waitFullyReplicated(ctx context.Context, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		n, err := a.underReplicated(ctx)
		if err == nil && n == 0 {
			return 0
		}
		if err != nil {
			n = -1
		}
		if time.Now().After(deadline) || !sleepCtx(ctx, 500*time.Millisecond) {
			return n
		}
	}
}

// roles asks the cluster who holds what (kafkarole).
func (a *admin) roles() kafkarole.Finder { return kafkarole.New(a.adm) }

// shareStateKey is the key of the share-partition's state: "group:topicId:partition".
func (a *admin) shareStateKey(ctx context.Context, group, topic string, partition int32) (string, error) {
	return a.roles().ShareStateKey(ctx, group, topic, partition)
}

// leaders maps each partition of topic to its leader.
func (a *admin) leaders(ctx context.Context, topic string) (map[int32]cluster.NodeID, error) {
	return a.roles().Leaders(ctx, topic)
}

// ledBy lists topic's partitions that node leads, as "topic/p" (the
// spelling of a WriteTxnMarkers partition in a fault's events).
func (a *admin) ledBy(ctx context.Context, topic string, node cluster.NodeID) ([]string, error) {
	leaders, err := a.leaders(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("find leaders of %s: %w", topic, err)
	}
	var out []string
	for p, n := range leaders {
		if n == node {
			out = append(out, fmt.Sprintf("%s/%d", topic, p))
		}
	}
	slices.Sort(out)
	return out, nil
}

// partitionCount is how many partitions topic has (0 when it does not exist).
func (a *admin) partitionCount(ctx context.Context, topic string) (int, error) {
	m, err := a.adm.Metadata(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("read partitions of %s: %w", topic, err)
	}
	t, ok := m.Topics[topic]
	if !ok || t.Err != nil {
		return 0, nil
	}
	return len(t.Partitions), nil
}

// coordinatorPartitions is how many partitions a coordinator topic has
// (kafkarole's topics): the count its keys hash over. A topic that does not
// exist yet (no coordinator of its kind was ever asked for) is an error.
func (a *admin) coordinatorPartitions(ctx context.Context, topic string) (int, error) {
	n, err := a.partitionCount(ctx, topic)
	if err == nil && n == 0 {
		err = fmt.Errorf("%s does not exist", topic)
	}
	return n, err
}

// cellTxnIDs lists the transactional ids of a cell's workers: the slots'
// ids (Env.Workers) and whatever ids with the cell's worker prefix the
// coordinators know (a runner that did not say how many slots it runs).
func (a *admin) cellTxnIDs(ctx context.Context, env Env) []string {
	ids := map[string]bool{}
	for slot := 1; slot <= env.slots(); slot++ {
		ids[env.Topology.TransactionalID(slot)] = true
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// Shard errors leave out the ids of a broker that did not answer: the
	// slots' ids are there anyway.
	listed, _ := a.adm.ListTransactions(lctx, nil, nil)
	for _, id := range listed.TransactionalIDs() {
		if strings.HasPrefix(id, env.Topology.Prefix+"-w") {
			ids[id] = true
		}
	}
	out := slices.Collect(maps.Keys(ids))
	slices.Sort(out)
	return out
}
