package suites

import (
	"context"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// Run runs the matrix the options select and writes the run directory. The
// returned Result is also what result.json holds; its ExitCode is the process's.
// A *harness.UsageError means nothing was run. On ctx cancellation (Ctrl-C)
// the run stops its workers and cluster and still writes what was recorded.
func Run(ctx context.Context, opts Options) (result.Result, error) {
	o, err := opts.Validated()
	if err != nil {
		return result.Result{ExitCode: verdict.ExitUsage}, err
	}
	thresholds, _ := bench.ParseThresholds(o.Thresholds) // checked by Validated
	o.deletions = new(sync.WaitGroup)
	if o.Seed == 0 {
		o.Seed = harness.RandomSeed()
	}
	started := time.Now()
	if o.Out == "" {
		o.Out = harness.RunDir(started, o.Seed)
	}
	created, err := harness.PrepareOut(o.Out)
	if err != nil {
		return result.Result{ExitCode: verdict.ExitUsage}, err
	}
	runID := harness.RunID(o.Seed, started)
	res := result.Result{Dir: o.Out, Seed: o.Seed, Started: started.UTC(), Command: o.Command, Config: o.config(), Runs: []result.Cell{}}
	o.Log.Info("run", "seed", o.Seed, "out", o.Out, "run_id", runID)
	b := harness.ChooseBackend(ctx, o.Backend)
	res.Backend, res.BackendWhy = b.Name, b.Why
	fmt.Fprintf(o.Progress, "sharechaos run: seed %d, backend %s (%s), run directory %s\n", o.Seed, b.Name, b.Why, o.Out)
	res.Command = replayLine(o.Command, b.Name, o.Seed)
	so, brokerNote, err := harness.StartOptionsFor(o.Common, b, harness.StartOptions{Brokers: o.Brokers, RunID: runID, Dir: o.Out, Lock: o.Lock,
		TxnMaxTimeout: o.longestTxnTimeout(), Log: o.Log, External: o.External, KafkaImage: o.KafkaImage, BrokerJIT: o.BrokerJIT})
	if err != nil {
		if created {
			_ = os.RemoveAll(o.Out)
		}
		return result.Result{ExitCode: verdict.ExitUsage}, err
	}
	if brokerNote != "" {
		res.BackendWhy += "; " + brokerNote
		res.Config["broker"] = brokerNote
	}
	if so.Reference.Binary != "" {
		o.pendingLock = so.Reference.PendingLock
		res.Config[configPendingLock] = o.pendingLock
	}
	clusterStart := time.Now()
	c, err := harness.StartBackend(ctx, b, so)
	res.ClusterStartS = time.Since(clusterStart).Seconds()
	if err != nil {
		res.Interrupted = ctx.Err() != nil
		res.Runs = append(res.Runs, result.Cell{Scenario: "cluster", Backend: b.Name, Verdict: verdict.HarnessError,
			Reason: err.Error(), Anomalies: map[string]verdict.Found{}})
		return finish(o, thresholds, res, started), nil
	}
	closeCluster := func() {
		o.deletions.Wait()
		_ = c.Close(context.WithoutCancel(ctx))
	}
	defer closeCluster()
	res.Cluster = harness.DescribeCluster(ctx, c, o.Common)
	if so.PendingLock != "" && res.Cluster.KIP1289Advertised {
		// A Kafka image with KIP-1289 built in, started with
		// kip1289.pending.lock: its native cells are judged under that
		// policy, as the reference broker's are.
		o.pendingLock = so.PendingLock
		res.Config[configPendingLock] = o.pendingLock
	}
	settings, err := harness.CheckBrokerSettings(ctx, c, o.Lock, o.TxnTimeout)
	for k, v := range settings {
		res.Config["broker:"+k] = v
	}
	if err != nil {
		res.Runs = append(res.Runs, result.Cell{Scenario: "cluster", Backend: b.Name, Verdict: verdict.HarnessError,
			Reason: err.Error(), Anomalies: map[string]verdict.Found{}})
		return finish(o, thresholds, res, started), nil
	}

	plans, err := planCells(ctx, o, c)
	if err != nil {
		// Nothing was run: leave nothing behind (the broker log included).
		closeCluster()
		if created {
			_ = os.RemoveAll(o.Out)
		}
		return result.Result{ExitCode: verdict.ExitUsage}, err
	}
	if err := writePlan(o.Out, c.Name(), plans); err != nil {
		o.Log.Warn("write plan", "err", err)
	}
	started0 := res
	started0.Interrupted = true
	_ = writeResult(o.Out, finishResult(started0, started))
	prog := newProgress(o, len(plans))
	var mu sync.Mutex
	done := func(p cellPlan, cell result.Cell) {
		if (cell.Verdict != verdict.Pass && cell.Verdict != verdict.NA) || drainTimedOut(cell) {
			copyBrokerLogs(ctx, c, filepath.Join(o.Out, cell.Dir))
		}
		mu.Lock()
		defer mu.Unlock()
		prog.end(p, cell)
		res.Runs = append(res.Runs, cell)
		// Keep result.json current, so an interrupted run still has one.
		partial := res
		partial.Interrupted = true
		partial.Runs = sortedCells(res.Runs)
		_ = writeResult(o.Out, finishResult(partial, started))
	}
	share := func(row []cellPlan) *faultShare {
		ro, _ := withLoad(&o, row[0].scenario)
		return newFaultShare(row[0].scenario, c, ro.Workers, row[0].seed, len(row))
	}
	runPlans(ctx, o.Parallel, plans, share, o.deletions.Wait, func(p cellPlan) {
		o.Log.Info("cell", "scenario", p.name(), "mode", p.mode, "realization", p.realization, "repeat", p.repeat)
		done(p, runCell(ctx, &o, prog, c, runID, o.Out, p))
	})
	prog.close()
	res.Runs = sortedCells(res.Runs)
	if ctx.Err() != nil {
		res.Interrupted = true
	}
	return finish(o, thresholds, res, started), nil
}

// finishResult sets the run verdict (the worst cell) and the exit code.
func finishResult(res result.Result, started time.Time) result.Result {
	res = judgeRun(res)
	res.DurationS = time.Since(started).Seconds()
	return res
}

func finish(o Options, ts bench.Thresholds, res result.Result, started time.Time) result.Result {
	res = finishResult(res, started)
	res.Thresholds = evaluateThresholds(ts, res.Runs)
	res = judgeRun(res)
	if err := writeRun(o.Out, res); err != nil {
		fmt.Fprintf(os.Stderr, "sharechaos: write report: %v\n", err)
		if res.ExitCode == verdict.ExitPass {
			res.ExitCode = verdict.ExitHarnessError
		}
	}
	return res
}

// drainTimedOut: the share group never finished the input (FINDINGS 13), so
// the brokers' side is worth keeping even when the cell passed.
func drainTimedOut(c result.Cell) bool {
	for _, n := range c.Notes {
		if strings.HasPrefix(n, drainTimedOutNote) {
			return true
		}
	}
	return false
}

func copyBrokerLogs(ctx context.Context, c cluster.Cluster, dir string) {
	bl, ok := c.(cluster.BrokerLogs)
	if !ok {
		return
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = bl.CopyLogs(lctx, filepath.Join(dir, "broker-logs"))
}

// planCells expands scenarios x modes x repeats, deciding the transactional
// realization once for the run.
func planCells(ctx context.Context, o Options, c cluster.Cluster) ([]cellPlan, error) {
	scen, err := o.scenarios()
	if err != nil {
		return nil, err
	}
	txns, err := harness.DecideRealizations(ctx, o.Common, c)
	if err != nil {
		return nil, err
	}
	var plans []cellPlan
	for rep := 1; rep <= o.Repeats; rep++ {
		for _, s := range scen {
			for _, m := range o.Modes {
				if m != ctp.Transactional {
					plans = append(plans, cellPlan{index: len(plans), scenario: s, mode: m, repeat: rep,
						seed: o.Seed + int64(len(plans)), consumer: o.Consumer})
					continue
				}
				for _, txn := range txns {
					p := cellPlan{index: len(plans), scenario: s, mode: txn.Mode, realization: txn.Realization,
						repeat: rep, seed: o.Seed + int64(len(plans)), fallbackNote: txn.Warning, consumer: cellConsumer(txn, o.Consumer)}
					plans = append(plans, p)
				}
			}
		}
	}
	return plans, nil
}

// config is every setting that shaped the run, printed in the report.
func (o Options) config() map[string]string {
	m := map[string]string{
		"records": strconv.Itoa(o.Records), "workers": strconv.Itoa(o.Workers),
		"partitions": strconv.Itoa(int(o.Partitions)), "brokers": strconv.Itoa(o.Brokers),
		"max_records_per_poll": strconv.Itoa(int(o.MaxRecords)), "repeats": strconv.Itoa(o.Repeats),
		"record_lock": o.Lock.String(), "transaction_timeout": o.TxnTimeout.String(),
		"delivery_count_limit": strconv.Itoa(harness.DeliveryLimit), "drain_timeout": o.DrainTimeout.String(),
		"txn_acks": o.TxnAcks, "kip1289_member_tags": o.MemberTags, "on_unsupported": o.OnUnsupported, "consumer": o.Consumer + " (implicit, explicit; transactional: native on sharechaos, ledger on kgo)",
		"share.auto.offset.reset": "earliest", "share.isolation.level": "read_committed",
		"replication": "3 (min ISR 2) on 3+ brokers, else the broker count",
	}
	o.Soak.describe(m)
	return m
}

// cellConsumer is a cell's share consumer: a transactional cell's follows its
// realization (native on ours, ledger on kgo's), a fallback to explicit takes
// --consumer.
func cellConsumer(txn harness.TxnDecision, asked string) string {
	if r, ok := kip1289.LookupRealization(txn.Realization); ok && txn.Mode == ctp.Transactional {
		return r.Consumer
	}
	return asked
}

// longestTxnTimeout is the longest transaction timeout a scenario of the run
// sets for itself (0: none does), for the broker's maximum.
func (o Options) longestTxnTimeout() time.Duration {
	scen, _ := o.scenarios() // validated
	var longest time.Duration
	for _, s := range scen {
		if s.Worker != nil && s.Worker.TxnTimeout != nil {
			longest = max(longest, s.Worker.TxnTimeout(o.Lock))
		}
	}
	return longest
}
