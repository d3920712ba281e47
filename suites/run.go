package suites

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/cell"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/judge"
)

// Run runs the matrix the options select and writes the run directory. The
// returned Result is also what result.json holds; its ExitCode is the
// process's. A *harness.UsageError means nothing was run. On ctx
// cancellation (Ctrl-C) the run stops its workers and cluster and still
// writes what was recorded.
//
// The run's order: validate the options, open the run directory, start the
// cluster, plan the cells (plan.json), run them (schedule.go: the pool,
// then each cluster fault's row), judge the run and write its reports.
func Run(ctx context.Context, opts Options) (result.Result, error) {
	o, err := opts.Validated()
	if err != nil {
		return result.Result{ExitCode: verdict.ExitUsage}, err
	}
	// Worker hosts that cannot run a worker fail the run before anything
	// starts or is written, naming the host.
	if remote, _ := o.Common.Remote(); remote != nil {
		if err := remote.Probe(ctx); err != nil {
			return result.Result{ExitCode: verdict.ExitHarnessError}, fmt.Errorf("--worker-exec: %w", err)
		}
	}
	r, err := open(o)
	if err != nil {
		return result.Result{ExitCode: verdict.ExitUsage}, err
	}
	versions := o.Backends.Docker.Versions()
	for i, v := range versions {
		err := r.runVersion(ctx, versionStep{version: v, later: versions[i+1:]})
		switch {
		case err != nil && len(r.planned) == 0:
			return r.leave(err)
		case err != nil:
			// A later release refused (its realization cannot be
			// negotiated, ...): what the others ran stays, this one is
			// its error.
			r.harnessError(r.res.Backend, v, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return r.finish(), nil
}

// versionStep is one Kafka release of a run (version "" when the run names
// none) and the releases still to come, whose cells plan.json names ahead.
type versionStep struct {
	version string
	later   []string
}

// runVersion runs every cell on one cluster of the step's release: start
// the cluster, plan its cells, run them, stop it. A row whose fault leaves
// the brokers on another release (rolling-upgrade) runs after the others,
// each on a cluster of its own (ownCluster.go). An error is a usage error
// (nothing of this release ran); a cluster that does not start is a
// HARNESS-ERROR cell, and the next release still runs.
func (r *runState) runVersion(ctx context.Context, step versionStep) error {
	c, err := r.startCluster(ctx, step.version, "")
	if err != nil || c == nil {
		return err
	}
	defer func() { r.closeCluster(ctx, c) }()
	plans, err := planCells(ctx, r.o, c, step.version)
	if err != nil {
		// Nothing was run: leave nothing behind (the broker log included).
		r.closeCluster(ctx, c)
		return err
	}
	r.planned = append(r.planned, plans...)
	if err := writePlan(r.o.Out, c.Name(), r.planned, step.later); err != nil {
		r.o.Log.Warn("write plan", "err", err)
	}
	shared, own := splitOwnCluster(plans, c)
	if len(shared) > 0 {
		r.runShared(ctx, c, step.version, shared)
	}
	for i, row := range own {
		if ctx.Err() != nil {
			break
		}
		if len(shared) > 0 || i > 0 {
			// The cluster before is the one of the cells already run (or
			// on another release now): the row gets a fresh one.
			r.closeCluster(ctx, c)
			if c, err = r.startCluster(ctx, step.version, row[0].Scenario.Name); err != nil || c == nil {
				return err
			}
		}
		prog := newProgress(r.o, len(row))
		r.runCells(ctx, c, row, prog)
		prog.close()
	}
	return nil
}

// runState is one run's state while it runs (Options are the user's
// settings only).
type runState struct {
	o          Options
	thresholds bench.Thresholds
	started    time.Time
	runID      string
	// created: the run directory is the run's own (removed when nothing ran).
	created bool
	// conditions are what the cells ran under that their rows' evidence
	// depends on (the reference broker's pending-lock policy, the lock).
	conditions scenarios.Conditions
	// deletions and groupDeletions are the cells' background topic and
	// share group deletions (cell.Env).
	deletions, groupDeletions *sync.WaitGroup
	// planned are the cells of the releases started so far (plan.json).
	planned []cell.Plan
	mu      sync.Mutex // guards res
	res     result.Result
}

// open gives the run its seed, its directory and the result it fills.
func open(o Options) (*runState, error) {
	thresholds, _ := bench.ParseThresholds(o.Thresholds) // checked by Validated
	if o.Seed == 0 {
		o.Seed = harness.RandomSeed()
	}
	started := time.Now()
	if o.Out == "" {
		o.Out = harness.RunDir(started, o.Seed)
	}
	created, err := harness.PrepareOut(o.Out)
	if err != nil {
		return nil, err
	}
	r := &runState{o: o, thresholds: thresholds, started: started, runID: harness.RunID(o.Seed, started), created: created,
		conditions: scenarios.Conditions{Lock: o.Lock}, deletions: new(sync.WaitGroup), groupDeletions: new(sync.WaitGroup),
		res: result.Result{Dir: o.Out, Seed: o.Seed, Started: started.UTC(), Command: o.Command, Config: o.config(), Runs: []result.Cell{}}}
	o.Log.Info("run", "seed", o.Seed, "out", o.Out, "run_id", r.runID)
	return r, nil
}

// leave ends a run that ran no cell: an error (a usage error: a bad
// backend setting, a plan that cannot be made) removes what the run made
// and exits 64; without one (the cluster did not start) the run's
// HARNESS-ERROR is judged and reported.
func (r *runState) leave(err error) (result.Result, error) {
	if err != nil {
		if r.created {
			_ = os.RemoveAll(r.o.Out)
		}
		return result.Result{ExitCode: verdict.ExitUsage}, err
	}
	return r.finish(), nil
}

// startCluster chooses and starts the backend, on the release version
// ("": the image the flags name); own names the row that gets a cluster of
// its own ("": the release's cluster for every other cell). A start that
// fails is a HARNESS-ERROR cell (returned cluster nil, error nil); a bad
// backend setting is a usage error.
func (r *runState) startCluster(ctx context.Context, version, own string) (cluster.Cluster, error) {
	o := r.o
	b := harness.ChooseBackend(ctx, o.Backend)
	r.res.Backend, r.res.BackendWhy = b.Name, b.Why
	if err := harness.CheckDockerImages(ctx, o.Backends.Docker, b.Name); err != nil {
		return nil, err
	}
	on := ""
	if version != "" {
		on = ", Kafka " + version
	}
	fmt.Fprintf(o.Progress, "sharechaos run: seed %d, backend %s%s (%s), run directory %s\n", o.Seed, b.Name, on, b.Why, o.Out)
	r.res.Command = replayLine(o.Command, b.Name, o.Seed)
	flags := o.Backends
	flags.Docker = flags.Docker.ForVersion(version)
	so, brokerNote, err := harness.StartOptionsFor(o.Common, b, harness.StartOptions{Brokers: o.Brokers, RunID: ownName(r.versionRunID(version), own), Dir: ownDir(versionDir(o.Out, version), own), Lock: o.Lock,
		TxnMaxTimeout: o.longestTxnTimeout(), Log: o.Log, Flags: flags})
	if err != nil {
		return nil, err
	}
	if brokerNote != "" {
		r.res.BackendWhy += "; " + brokerNote
		r.res.Config["broker"] = brokerNote
	}
	if so.Reference.Binary != "" {
		r.conditions.PendingLock = so.Reference.PendingLock
		r.res.Config[judge.ConfigPendingLock] = so.Reference.PendingLock
	}
	clusterStart := time.Now()
	c, err := harness.StartBackend(ctx, b, so)
	r.res.ClusterStartS += time.Since(clusterStart).Seconds()
	if err != nil {
		r.res.Interrupted = ctx.Err() != nil
		r.harnessError(b.Name, version, err)
		return nil, nil
	}
	info := harness.DescribeCluster(ctx, c, o.Common)
	if own == "" {
		r.describeCluster(info, version)
	}
	if so.PendingLock != "" && info != nil && info.KIP1289Advertised {
		// A Kafka image with KIP-1289 built in, started with
		// kip1289.pending.lock: its native cells are judged under that
		// policy, as the reference broker's are.
		r.conditions.PendingLock = so.PendingLock
		r.res.Config[judge.ConfigPendingLock] = so.PendingLock
	}
	settings, err := harness.CheckBrokerSettings(ctx, c, o.Lock, o.TxnTimeout)
	for k, v := range settings {
		r.res.Config["broker:"+k] = v
	}
	if err != nil {
		r.harnessError(b.Name, version, err)
		r.closeCluster(ctx, c)
		return nil, nil
	}
	return c, nil
}

// versionDir is where a release's cluster keeps its files (broker logs):
// the run directory, or a folder of its own in a run over releases.
func versionDir(out, version string) string {
	if version == "" {
		return out
	}
	return filepath.Join(out, "kafka-"+version)
}

// versionRunID names a release's cluster (its containers, its broker-logs
// folder) apart from the run's other releases'.
func (r *runState) versionRunID(version string) string {
	if version == "" {
		return r.runID
	}
	return r.runID + "-" + version
}

// describeCluster keeps what the cluster said about itself: the run's
// cluster, and in a run over releases each release's beside it.
func (r *runState) describeCluster(info *result.ClusterInfo, version string) {
	if info != nil && version != "" {
		info.Release = version
		r.res.Clusters = append(r.res.Clusters, *info)
	}
	if r.res.Cluster == nil {
		r.res.Cluster = info
	}
}

// harnessError records a cluster failing as its release's one cell.
func (r *runState) harnessError(backend, version string, err error) {
	r.res.Runs = append(r.res.Runs, result.Cell{Scenario: "cluster", Backend: backend, KafkaVersion: version,
		Verdict: verdict.HarnessError, Reason: err.Error(), Anomalies: map[string]verdict.Found{}})
}

// closeCluster waits for the cells' deletions, then stops the cluster.
func (r *runState) closeCluster(ctx context.Context, c cluster.Cluster) {
	r.deletions.Wait()
	r.groupDeletions.Wait()
	_ = c.Close(context.WithoutCancel(ctx))
}

// runShared runs the cells of the release's cluster: on it, or with
// --clusters 2 on two. The cluster-fault rows are split between the two
// (whole rows, every third to the second cluster), and the second runs the
// pool's cells (faults inside their own workers) first: neither cluster
// ever has a cluster fault beside other cells, and the pool's time overlaps
// the rows'. A second cluster that does not start leaves every cell to c.
func (r *runState) runShared(ctx context.Context, c cluster.Cluster, version string, plans []cell.Plan) {
	prog := newProgress(r.o, len(plans))
	defer prog.close()
	var pool []cell.Plan
	var rows [][]cell.Plan
	for _, p := range plans {
		switch n := len(rows); {
		case placementOf(p) == besideOthers:
			pool = append(pool, p)
		case n > 0 && rows[n-1][0].Scenario.Name == p.Scenario.Name && rows[n-1][0].Repeat == p.Repeat:
			rows[n-1] = append(rows[n-1], p)
		default:
			rows = append(rows, []cell.Plan{p})
		}
	}
	if r.o.Clusters < 2 || len(pool)+len(rows) < 2 {
		r.runCells(ctx, c, plans, prog)
		return
	}
	var first, second []cell.Plan
	for i, row := range rows {
		if i%3 == 2 {
			second = append(second, row...)
		} else {
			first = append(first, row...)
		}
	}
	second = append(pool, second...)
	c2, err := r.startCluster(ctx, version, "pool")
	if err != nil || c2 == nil {
		r.o.Log.Warn("second cluster did not start: every cell runs on the first", "err", err)
		r.runCells(ctx, c, plans, prog)
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer r.closeCluster(ctx, c2)
		r.runCells(ctx, c2, second, prog)
	}()
	r.runCells(ctx, c, first, prog)
	wg.Wait()
}

// runCells runs the planned cells (schedule.go) on c, keeping result.json
// current after every cell so an interrupted run still has one.
func (r *runState) runCells(ctx context.Context, c cluster.Cluster, plans []cell.Plan, prog *progress) {
	r.writeInterrupted()
	remote, _ := r.o.Common.Remote() // validated with the options
	env := cell.Env{Cluster: c, RunID: r.runID, RunDir: r.o.Out, Display: prog, Log: r.o.Log, Deletions: r.deletions, GroupDeletions: r.groupDeletions,
		Remote: remote}
	settings := r.cellSettings()
	share := func(row []cell.Plan) *cell.Share {
		s, _ := settings.WithLoad(row[0].Scenario)
		return cell.NewShare(row[0].Scenario, c, s.Workers, row[0].Seed, len(row))
	}
	runPlans(ctx, r.o.Parallel, plans, share, r.deletions.Wait, func(p cell.Plan) {
		r.o.Log.Info("cell", "scenario", p.Name(), "mode", p.Mode, "realization", p.Realization, "repeat", p.Repeat)
		done := cell.Run(ctx, env, settings, p)
		if (done.Verdict != verdict.Pass && done.Verdict != verdict.NA) || drainTimedOut(done) {
			copyBrokerLogs(ctx, c, filepath.Join(r.o.Out, done.Dir))
		}
		prog.end(p, done)
		r.mu.Lock()
		r.res.Runs = append(r.res.Runs, done)
		r.mu.Unlock()
		r.writeInterrupted()
	})
	if ctx.Err() != nil {
		r.res.Interrupted = true
	}
}

// writeInterrupted writes result.json as it stands, marked interrupted
// until the run ends.
func (r *runState) writeInterrupted() {
	r.mu.Lock()
	partial := r.res
	partial.Runs = judge.SortedCells(r.res.Runs)
	r.mu.Unlock()
	partial.Interrupted = true
	_ = judge.WriteResult(r.o.Out, r.judged(partial))
}

// cellSettings are what every cell runs with, before its row's own load.
func (r *runState) cellSettings() cell.Settings {
	o := r.o
	return cell.Settings{
		Load: cell.Load{Records: o.Records, Workers: o.Workers, Partitions: o.Partitions, Batch: o.MaxRecords},
		Lock: o.Lock, TxnTimeout: o.TxnTimeout, DrainTimeout: o.DrainTimeout, Soak: o.Soak,
		KIP1289Keys: o.KIP1289Keys, MemberTags: o.MemberTags, KeepTopics: o.KeepTopics, Conditions: r.conditions,
	}
}

// judged sets the run verdict (the worst cell), its duration and exit code.
func (r *runState) judged(res result.Result) result.Result {
	res = judge.Run(res)
	res.DurationS = time.Since(r.started).Seconds()
	return res
}

// finish judges the run with its thresholds and writes every report file.
func (r *runState) finish() result.Result {
	res := r.res
	res.Runs = judge.SortedCells(res.Runs)
	res = r.judged(res)
	res.Thresholds = judge.Thresholds(r.thresholds, res.Runs)
	judge.Compare(r.o.Out, &res)
	res = judge.Run(res)
	if err := judge.WriteRun(r.o.Out, res); err != nil {
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
		if strings.HasPrefix(n, cell.DrainTimedOutNote) {
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

// config is every setting that shaped the run, printed in the report.
func (o Options) config() map[string]string {
	m := map[string]string{
		"records": strconv.Itoa(o.Records), "workers": strconv.Itoa(o.Workers),
		"partitions": strconv.Itoa(int(o.Partitions)), "brokers": strconv.Itoa(o.Brokers),
		"max_records_per_poll": strconv.Itoa(int(o.MaxRecords)), "repeats": strconv.Itoa(o.Repeats),
		"record_lock": o.Lock.String(), "transaction_timeout": o.TxnTimeout.String(),
		"delivery_count_limit": strconv.Itoa(harness.DeliveryLimit), "drain_timeout": o.DrainTimeout.String(),
		"txn_acks": o.TxnAcks, "clients": strings.Join(o.Clients, ","), "kip1289_member_tags": o.MemberTags, "on_unsupported": o.OnUnsupported, "consumer": o.Consumer + " (implicit, explicit; transactional: native on sharechaos, ledger on kgo)",
		"share.auto.offset.reset": "earliest", "share.isolation.level": "read_committed",
		"replication": "3 (min ISR 2) on 3+ brokers, else the broker count",
	}
	o.Soak.Describe(m)
	return m
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
