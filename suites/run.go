package suites

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Run runs the matrix the options select and writes the run directory. The
// returned Result is also what result.json holds; its ExitCode is the process's.
// A *UsageError means nothing was run. On ctx cancellation (Ctrl-C) the run
// stops its workers and cluster and still writes what was recorded.
func Run(ctx context.Context, o Options) (reports.Result, error) {
	if err := o.Validate(); err != nil {
		return reports.Result{ExitCode: verdict.ExitUsage}, err
	}
	if o.Seed == 0 {
		o.Seed = randomSeed()
	}
	started := time.Now()
	if o.Out == "" {
		o.Out = filepath.Join("runs", started.Format("20060102-150405")+"-"+strconv.FormatInt(o.Seed, 10))
	}
	created, err := prepareOut(o.Out)
	if err != nil {
		return reports.Result{ExitCode: verdict.ExitUsage}, err
	}
	runID := runIDFrom(o.Seed, started)
	res := reports.Result{Dir: o.Out, Seed: o.Seed, Started: started.UTC(), Command: o.Command, Config: o.config(), Runs: []reports.Cell{}}
	o.Log.Info("run", "seed", o.Seed, "out", o.Out, "run_id", runID)

	b := chooseBackend(ctx, &o)
	res.Backend, res.BackendWhy = b.name, b.why
	c, err := startBackend(ctx, &o, b, runID, o.Out)
	if err != nil {
		res.Interrupted = ctx.Err() != nil
		res.Runs = append(res.Runs, reports.Cell{Scenario: "cluster", Backend: b.name, Verdict: verdict.HarnessError,
			Reason: err.Error(), Anomalies: map[string]verdict.Found{}})
		return finish(o, res, started), nil
	}
	closeCluster := func() { _ = c.Close(context.WithoutCancel(ctx)) }
	defer closeCluster()

	plans, err := planCells(ctx, &o, c)
	if err != nil {
		// Nothing was run: leave nothing behind (the broker log included).
		closeCluster()
		if created {
			_ = os.RemoveAll(o.Out)
		}
		return reports.Result{ExitCode: verdict.ExitUsage}, err
	}
	var mu sync.Mutex
	done := func(cell reports.Cell) {
		if cell.Verdict != verdict.Pass && cell.Verdict != verdict.NA {
			copyBrokerLogs(ctx, c, filepath.Join(o.Out, cell.Dir))
		}
		mu.Lock()
		defer mu.Unlock()
		o.endProgress(cell)
		res.Runs = append(res.Runs, cell)
		// Keep result.json current, so an interrupted run still has one.
		partial := res
		partial.Interrupted = true
		partial.Runs = sortedCells(res.Runs)
		_ = writeResult(o.Out, finishResult(partial, started))
	}
	runPlans(ctx, &o, plans, func(p cellPlan) {
		o.Log.Info("cell", "scenario", p.scenario(), "mode", p.mode, "realization", p.realization, "repeat", p.repeat)
		done(runCell(ctx, &o, c, runID, o.Out, p))
	})
	res.Runs = sortedCells(res.Runs)
	if ctx.Err() != nil {
		res.Interrupted = true
	}
	return finish(o, res, started), nil
}

// finishResult sets the run verdict (the worst cell) and the exit code.
func finishResult(res reports.Result, started time.Time) reports.Result {
	vs := make([]verdict.Verdict, len(res.Runs))
	for i, c := range res.Runs {
		vs[i] = c.Verdict
	}
	res.Verdict = verdict.Worst(vs...)
	if res.Interrupted && res.Verdict == verdict.Pass {
		res.Verdict = verdict.Unknown
	}
	res.ExitCode = res.Verdict.ExitCode()
	res.DurationS = time.Since(started).Seconds()
	return res
}

func finish(o Options, res reports.Result, started time.Time) reports.Result {
	res = finishResult(res, started)
	res.Thresholds = evaluateThresholds(o.thresholds, res.Runs)
	applyThresholds(&res)
	if err := writeRun(o.Out, res); err != nil {
		fmt.Fprintf(os.Stderr, "sharechaos: write report: %v\n", err)
		if res.ExitCode == verdict.ExitPass {
			res.ExitCode = verdict.ExitHarnessError
		}
	}
	return res
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
func planCells(ctx context.Context, o *Options, c cluster.Cluster) ([]cellPlan, error) {
	scen, err := o.scenarios()
	if err != nil {
		return nil, err
	}
	txn, err := decideTransactional(ctx, o, c)
	if err != nil {
		return nil, err
	}
	var plans []cellPlan
	for rep := 1; rep <= o.Repeats; rep++ {
		for _, f := range scen {
			for _, m := range o.Modes {
				p := cellPlan{index: len(plans), fault: f, mode: m, repeat: rep,
					seed: o.Seed + int64(len(plans))}
				if m == ctp.Transactional {
					p.mode, p.realization, p.fallbackNote = txn.mode, txn.realization, txn.warning
				}
				plans = append(plans, p)
			}
		}
	}
	return plans, nil
}

// prepareOut makes the run directory; created says whether it did not exist.
func prepareOut(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return false, usagef("--out %s: the directory exists and is not empty (a run never mixes with another's files)", dir)
	case err == nil:
	case os.IsNotExist(err):
		created = true
	default:
		return false, usagef("--out %s: %v", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, usagef("--out %s: %v", dir, err)
	}
	return created, nil
}

func randomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 12) // short enough to type
}

// runIDFrom names the run's topics and containers: unique per run, short.
func runIDFrom(seed int64, t time.Time) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(t.UnixNano())^uint32(seed))
	return hex.EncodeToString(b[:])
}

// config is every setting that shaped the run, printed in the report.
func (o *Options) config() map[string]string {
	return map[string]string{
		"records": strconv.Itoa(o.Records), "workers": strconv.Itoa(o.Workers),
		"partitions": strconv.Itoa(int(o.Partitions)), "brokers": strconv.Itoa(o.Brokers),
		"max_records_per_poll": strconv.Itoa(int(o.MaxRecords)), "repeats": strconv.Itoa(o.Repeats),
		"record_lock": o.Lock.String(), "transaction_timeout": o.TxnTimeout.String(),
		"delivery_count_limit": strconv.Itoa(deliveryLimit), "drain_timeout": o.DrainTimeout.String(),
		"txn_acks": o.TxnAcks, "on_unsupported": o.OnUnsupported,
		"share.auto.offset.reset": "earliest", "share.isolation.level": "read_committed",
		"replication": "3 (min ISR 2) on 3+ brokers, else the broker count",
	}
}

// deliveryLimit is the share groups' delivery-count limit in chaos runs: faults
// are one-shot per record, so a correct system never archives (ORACLE.md).
const deliveryLimit = 10
