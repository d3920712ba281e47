package benchrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// The floor is what the cluster costs before any ack mode adds to it: Kafka
// does not fsync per write by default, so a commit's floor is replication
// round trips (a produce with acks=all, then the transaction's markers and
// its replicated append to the transaction log). Measured one operation at a
// time, so it holds no queueing.
const (
	// floorWarmup operations of each kind go first, unrecorded (the first
	// transaction of a transactional id registers it).
	floorWarmup = 20
	// floorSamples of each kind are recorded, or as many as fit in the
	// bench's --duration.
	floorSamples = 200
)

// measureFloor measures the floor at the current link latency on its own
// topic (the runs' replication and min ISR): plain produces, then bare
// transactions. It never fails: what went wrong is the floor's Error.
func measureFloor(ctx context.Context, env *benchEnv, latency time.Duration) result.BenchFloor {
	f := result.BenchFloor{LinkLatency: latency.String()}
	topo, err := setupTopologyAs(ctx, env, benchPlan{index: -1, point: benchPoint{partitions: 1}}, "-floor-"+latency.String())
	defer dropTopology(ctx, env, topo)
	if err != nil {
		f.Error = err.Error()
		return f
	}
	limit := max(env.o.Duration, 5*time.Second)
	produce, err := floorProduce(ctx, env.c, topo, limit)
	f.Produce = produce.Percentiles()
	if err == nil {
		var txn, commit *bench.Histogram
		txn, commit, err = floorTxn(ctx, env.c, topo, limit)
		f.Txn, f.TxnCommit = txn.Percentiles(), commit.Percentiles()
	}
	if err != nil {
		f.Error = err.Error()
	}
	return f
}

// floorProduce times single-record acks=all produces, each waited for.
func floorProduce(ctx context.Context, c cluster.Cluster, topo ctp.Topology, limit time.Duration) (*bench.Histogram, error) {
	h := bench.NewHistogram()
	cl, err := cluster.NewClient(c, kgo.DefaultProduceTopic(topo.OutputTopic), kgo.ProducerLinger(0), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		return h, fmt.Errorf("floor: produce client: %w", err)
	}
	defer cl.Close()
	end := time.Now().Add(limit)
	for i := 0; i < floorWarmup+floorSamples && time.Now().Before(end); i++ {
		began := time.Now()
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("floor")}).FirstErr(); err != nil {
			return h, fmt.Errorf("floor: produce: %w", err)
		}
		if i >= floorWarmup {
			h.Record(time.Since(began))
		}
	}
	return h, nil
}

// floorTxn times bare transactions (begin, one record, commit), whole and
// their commit alone, on the workers' producer settings.
func floorTxn(ctx context.Context, c cluster.Cluster, topo ctp.Topology, limit time.Duration) (txn, commit *bench.Histogram, err error) {
	txn, commit = bench.NewHistogram(), bench.NewHistogram()
	cl, err := cluster.NewClient(c, kgo.DefaultProduceTopic(topo.OutputTopic), kgo.ProducerLinger(0),
		kgo.TransactionalID(topo.TransactionalID(0)), kgo.TransactionTimeout(benchTxnTimeout))
	if err != nil {
		return txn, commit, fmt.Errorf("floor: transactional client: %w", err)
	}
	defer cl.Close()
	end := time.Now().Add(limit)
	for i := 0; i < floorWarmup+floorSamples && time.Now().Before(end); i++ {
		began := time.Now()
		if err := cl.BeginTransaction(); err != nil {
			return txn, commit, fmt.Errorf("floor: begin: %w", err)
		}
		perr := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("floor")}).FirstErr()
		committing := time.Now()
		how := kgo.TryCommit
		if perr != nil {
			how = kgo.TryAbort
		}
		if err := cl.EndTransaction(ctx, how); err != nil || perr != nil {
			return txn, commit, fmt.Errorf("floor: transaction: %w", errors.Join(perr, err))
		}
		if i >= floorWarmup {
			commit.Record(time.Since(committing))
			txn.Record(time.Since(began))
		}
	}
	return txn, commit, nil
}

// floorLine is the floor's progress line.
func floorLine(f result.BenchFloor) string {
	if f.Error != "" {
		return fmt.Sprintf("floor at link latency %s: not measured: %s", f.LinkLatency, f.Error)
	}
	return fmt.Sprintf("floor at link latency %s: produce acks=all p50 %.2f ms p99 %.2f ms; bare transaction p50 %.2f ms p99 %.2f ms (its commit p50 %.2f ms)",
		f.LinkLatency, f.Produce.P50, f.Produce.P99, f.Txn.P50, f.Txn.P99, f.TxnCommit.P50)
}
