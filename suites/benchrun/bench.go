package benchrun

import (
	"context"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Bench runs `sharechaos bench`: one cluster for the whole bench; for each
// sweep point (link latency, partitions, rate), batch size and repeat, one
// run per mode, the modes interleaved (A B C A B C ...) so drift hits all
// alike; then the comparison of every mode with explicit, the curves, the
// thresholds, and the reports (bench.json, summary.md, report.html, .hgrm
// per metric and mode). The returned Bench is what bench.json holds; its
// ExitCode is the process's. A *UsageError means nothing was run. On ctx
// cancellation (Ctrl-C) the bench stops, closes the cluster and writes what
// it recorded.
//
// Its phases: the options and the run directory; the cluster (startBench);
// the plan (planBench); the runs, a floor before each link latency
// (runPlans); the figures (summarizeBench); the reports (finishBench).
func Run(ctx context.Context, o Options) (result.Bench, error) {
	o, err := o.Validated()
	if err != nil {
		return result.Bench{ExitCode: verdict.ExitUsage}, err
	}
	thresholds, _ := bench.ParseThresholds(o.Thresholds) // validated above
	if o.Seed == 0 {
		o.Seed = harness.RandomSeed()
	}
	started := time.Now()
	if o.Out == "" {
		o.Out = filepath.Join("runs", started.Format("20060102-150405")+"-bench-"+strconv.FormatInt(o.Seed, 10))
	}
	if axis, ok := benchAxisOf(o); ok {
		// One bench per release or client, then the values compared
		// (along.go).
		return runAlong(ctx, o, axis)
	}
	created, err := harness.PrepareOut(o.Out)
	if err != nil {
		return result.Bench{ExitCode: verdict.ExitUsage}, err
	}
	// Nothing was run: leave nothing behind (the broker log included).
	usage := func(err error) (result.Bench, error) {
		if created {
			_ = os.RemoveAll(o.Out)
		}
		return result.Bench{ExitCode: verdict.ExitUsage}, err
	}
	b := result.Bench{Seed: o.Seed, Started: started.UTC(), Command: o.Command, Rates: o.Rates,
		RepeatDurationS: o.Duration.Seconds(), Repeats: o.Repeats, Batches: o.Batches, Alpha: o.Alpha,
		Runs: []result.BenchRun{}, Comparisons: []result.BenchComparison{}}
	fmt.Fprintf(o.Progress, "sharechaos bench: seed %d, out %s\n", o.Seed, o.Out)

	env, stop, err := startBench(ctx, &o, &b, started)
	if stop == nil {
		return usage(err)
	}
	defer stop()
	if err != nil {
		b.Notes = append(b.Notes, err.Error())
		return finishBench(&o, b, nil, started, true), nil
	}
	plans, notes, err := planBench(ctx, &o, env)
	if err != nil {
		stop()
		return usage(err)
	}
	b.Notes = append(b.Notes, notes...)
	b.Modes = benchModeLabels(plans)
	b.Baseline = benchBaseline(b.Modes)
	b.Config = o.config(env.c)
	if env.brokerNote != "" {
		b.Config["broker"] = env.brokerNote
	}
	o.Log.Info("bench", "seed", o.Seed, "out", o.Out, "runs", len(plans))

	if note := warmCluster(ctx, env, plans); note != "" {
		b.Notes = append(b.Notes, note)
	}
	results, harnessFailed := runPlans(ctx, env, plans, &b, started)
	figs := summarizeBench(&o, &b, results, thresholds)
	return finishBench(&o, b, figs, started, harnessFailed), nil
}

// startBench starts the bench's cluster and its admin client. stop nil: a
// usage error (err), nothing started; else stop closes what started, and
// err is the suite's failure (the cluster did not start), to be reported.
func startBench(ctx context.Context, o *Options, b *result.Bench, started time.Time) (env *benchEnv, stop func(), err error) {
	runID := harness.RunID(o.Seed, started)
	choice := harness.ChooseBackend(ctx, o.Backend)
	b.Backend, b.BackendWhy = choice.Name, choice.Why
	so, brokerNote, err := harness.StartOptionsFor(o.Common, choice, harness.StartOptions{Brokers: o.Brokers, RunID: runID, Dir: o.Out,
		Lock: harness.DefaultLock, Log: o.Log, Flags: o.Backends})
	if err == nil {
		err = harness.CheckDockerImages(ctx, o.Backends.Docker, choice.Name)
	}
	if err != nil {
		return nil, nil, err
	}
	if brokerNote != "" {
		b.BackendWhy += "; " + brokerNote
	}
	c, err := harness.StartBackend(ctx, choice, so)
	if err != nil {
		b.Interrupted = ctx.Err() != nil
		return nil, func() {}, errors.New("the cluster did not start: " + err.Error())
	}
	closeCluster := func() { _ = c.Close(context.WithoutCancel(ctx)) }
	b.Cluster = harness.DescribeCluster(ctx, c, o.Common)
	admin, err := cluster.NewClient(c, kgo.ClientID("sharechaos-bench"))
	if err != nil {
		return nil, closeCluster, errors.New("create admin client: " + err.Error())
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			admin.Close()
			closeCluster()
		})
	}
	return &benchEnv{o: o, c: c, runID: runID, admin: admin, brokerNote: brokerNote}, stop, nil
}

// runPlans runs the plans in order, the link latency set and the floor
// measured whenever the latency changes, bench.json kept current so an
// interrupted bench still has one. harnessFailed: a run (or the latency)
// failed by the suite's fault.
func runPlans(ctx context.Context, env *benchEnv, plans []benchPlan, b *result.Bench, started time.Time) (results []benchResult, harnessFailed bool) {
	o := env.o
	latency := time.Duration(-1)
	defer func() {
		if ctx.Err() != nil {
			b.Interrupted = true
		}
		if latency > 0 {
			_ = setLinkLatency(context.WithoutCancel(ctx), env.c, 0)
		}
	}()
	for i, p := range plans {
		if ctx.Err() != nil {
			return results, harnessFailed
		}
		if p.point.latency != latency {
			if err := setLinkLatency(ctx, env.c, p.point.latency); err != nil {
				b.Notes = append(b.Notes, fmt.Sprintf("link latency %s could not be set: %v", p.point.latency, err))
				return results, true
			}
			latency = p.point.latency
			f := measureFloor(ctx, env, latency)
			b.Floors = append(b.Floors, f)
			fmt.Fprintln(o.Progress, floorLine(f))
		}
		r := runOne(ctx, env, p, filepath.Join(o.Out, "runs", p.dirName()))
		results = append(results, r)
		harnessFailed = harnessFailed || r.harness
		fmt.Fprintln(o.Progress, progressLine(i+1, len(plans), r))
		if !r.plan.bare {
			b.Runs = append(b.Runs, r.run)
		}
		partial := *b
		partial.Interrupted = true
		partial.DurationS = time.Since(started).Seconds()
		_ = result.WriteBenchJSON(o.Out, partial)
	}
	return results, harnessFailed
}

// warmCluster runs every mode once, briefly and unrecorded, before the first
// measured run: a freshly started broker (JIT, first transactions, first share
// group) is slower for a while, and without this the first mode of the first
// repeat would pay for it alone.
func warmCluster(ctx context.Context, env *benchEnv, plans []benchPlan) string {
	o := *env.o
	if o.Warmup <= 0 || len(plans) == 0 {
		return ""
	}
	o.Duration, o.Warmup, o.Fault = max(o.Warmup, 2*time.Second), 0, ""
	o.testStall.d = 0
	warm := *env
	warm.o, warm.fault = &o, nil
	var seen []string
	for _, p := range plans {
		if p.bare || slices.Contains(seen, p.label()) || ctx.Err() != nil {
			continue
		}
		seen = append(seen, p.label())
		p.index = 900 + len(seen)
		p.repeat = 0
		dir := filepath.Join(o.Out, "runs", "000-cluster-warmup-"+strings.ReplaceAll(p.label(), "/", "-"))
		r := runOne(ctx, &warm, p, dir)
		fmt.Fprintf(o.Progress, "cluster warm-up %-22s %.1f txn/s (not recorded)\n", p.label(), r.run.TxnPerSec)
	}
	return fmt.Sprintf("cluster warm-up: before the first measured run each mode ran once for %s, unrecorded (runs/000-cluster-warmup-*), so the first mode of the first repeat does not pay alone for a cold broker", o.Duration)
}

// planBench decides what the bench runs, once the cluster is up: the
// transactional realization (negotiated, CONTRACT.md), the fault's and the
// latency sweep's availability on this backend, then the interleaved order.
// Its error is a usage error: nothing was run.
func planBench(ctx context.Context, o *Options, env *benchEnv) ([]benchPlan, []string, error) {
	var notes []string
	if o.Fault != "" {
		f, _ := scenarios.Lookup(o.Fault)
		// The sweep's partitions and batches vary per run: only what is fixed is judged.
		shape := scenarios.Shape{Workers: o.Workers, Brokers: len(env.c.Nodes())}
		if why := f.NAReason(ctp.Explicit, "", env.c, f.Load.Over(shape)); why != "" {
			return nil, nil, usagef("--fault %s cannot run on the %s backend: %s", f.Name, env.c.Name(), why)
		}
		env.fault = &f
	}
	if slices.ContainsFunc(o.Latencies, func(d time.Duration) bool { return d > 0 }) {
		if _, ok := env.c.(cluster.Network); !ok {
			return nil, nil, usagef("--latency: the %s backend cannot add link latency", env.c.Name())
		}
	}
	modes := slices.Clone(o.Modes)
	var realizations []string
	if slices.Contains(modes, ctp.Transactional) {
		txns, err := harness.DecideRealizations(ctx, o.Common, env.c)
		if err != nil {
			return nil, nil, err
		}
		for _, txn := range txns {
			if txn.Warning != "" {
				notes = append(notes, txn.Warning)
			}
			if txn.Mode == ctp.Transactional && !slices.Contains(realizations, txn.Realization) {
				realizations = append(realizations, txn.Realization)
			}
		}
		if len(realizations) == 0 {
			// Fallen back to explicit: a second explicit would pool with the
			// first under another name. Say so and leave it out.
			modes = slices.DeleteFunc(modes, func(m ctp.AckMode) bool { return m == ctp.Transactional })
			notes = append(notes, "transactional mode left out: the brokers do not support it as asked, and its fallback is explicit mode, which the bench runs anyway")
		}
	}
	if len(modes) == 0 {
		return nil, nil, usagef("--mode: nothing left to run")
	}
	goClient := len(o.Clients) == 0 || o.Clients[0] == workerset.ClientGo
	overhead := o.Overhead && slices.Contains(modes, ctp.Explicit) && goClient
	switch {
	case o.Overhead && !goClient:
		// The bare loop is franz-go's: against another client's workers the
		// ratio is the clients' difference, not the harness's cost.
		notes = append(notes, "harness overhead not measured: the bare loop is franz-go's, and this bench's workers are "+o.Clients[0]+"'s")
	case o.Overhead && !overhead:
		notes = append(notes, "harness overhead not measured: it compares with explicit mode, which was not run")
	}

	var plans []benchPlan
	add := func(p benchPlan) {
		p.index = len(plans)
		p.seed = o.Seed + int64(p.index)
		plans = append(plans, p)
	}
	first := true
	for _, lat := range o.Latencies {
		for _, parts := range o.Partitions {
			for _, rate := range o.Rates {
				planPoint(o, benchPoint{partitions: parts, latency: lat, rate: rate}, modes, realizations, overhead && first, add)
				first = false
			}
		}
	}
	return plans, notes, nil
}

// planPoint adds one sweep point's runs: for each batch size and repeat,
// every mode once (each realization one more mode), interleaved. With
// overhead (the first sweep point only) the bare loop is one more
// interleaved "mode", so its repeats compare with explicit's like any
// mode's; its ProduceSync variant runs once per batch.
func planPoint(o *Options, pt benchPoint, modes []ctp.AckMode, realizations []string, overhead bool, add func(benchPlan)) {
	for _, batch := range o.Batches {
		for rep := 1; rep <= o.Repeats; rep++ {
			for _, m := range modes {
				if m != ctp.Transactional {
					add(benchPlan{point: pt, batch: batch, repeat: rep, mode: m})
					continue
				}
				for _, r := range realizations {
					add(benchPlan{point: pt, batch: batch, repeat: rep, mode: m, realization: r})
				}
			}
			if overhead {
				add(benchPlan{point: pt, batch: batch, repeat: rep, mode: ctp.Explicit, bare: true})
				if rep == 1 {
					add(benchPlan{point: pt, batch: batch, repeat: rep, mode: ctp.Explicit, bare: true, bareSync: true})
				}
			}
		}
	}
}

// benchModeLabels lists the mode labels in run order.
func benchModeLabels(plans []benchPlan) []string {
	var out []string
	for _, p := range plans {
		if l := p.label(); !p.bare && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// benchBaseline is explicit when it ran, else the first mode.
func benchBaseline(modes []string) string {
	if slices.Contains(modes, string(ctp.Explicit)) || len(modes) == 0 {
		return string(ctp.Explicit)
	}
	return modes[0]
}

// finishBench sets the verdict and exit code and writes the reports.
func finishBench(o *Options, b result.Bench, figs result.BenchFigures, started time.Time, harness bool) result.Bench {
	vs := []verdict.Verdict{verdict.Pass}
	if harness {
		vs = append(vs, verdict.HarnessError)
	}
	if b.Interrupted {
		vs = append(vs, verdict.Unknown)
	}
	if !bench.AllPass(b.Thresholds) {
		vs = append(vs, verdict.ThresholdFailed)
	}
	b.Verdict = verdict.Worst(vs...)
	b.ExitCode = b.Verdict.ExitCode()
	b.DurationS = time.Since(started).Seconds()
	if err := reports.WriteBench(o.Out, b, figs); err != nil {
		fmt.Fprintf(os.Stderr, "sharechaos: write report: %v\n", err)
		if b.ExitCode == verdict.ExitPass {
			b.ExitCode = verdict.ExitHarnessError
		}
	}
	return b
}

// progressLine is one line per finished run.
func progressLine(i, n int, r benchResult) string {
	p := r.plan
	tot := r.run.Latency[bench.TxnTotalDuration]
	line := fmt.Sprintf("[%d/%d] %-22s batch %-4d %s repeat %d: %.1f txn/s, txn_total p50 %.2fms p99 %.2fms",
		i, n, p.label(), p.batch, p.point.name(), p.repeat, r.run.TxnPerSec, tot.P50, tot.P99)
	if e2e, ok := r.run.Latency[bench.E2ELatency]; ok {
		line += fmt.Sprintf(", e2e p50 %.2fms", e2e.P50)
	}
	if r.paired != nil && tot.P50 > 0 {
		ours := float64(r.paired.Histogram(bench.TxnTotalDuration).Quantile(50)) / float64(time.Millisecond)
		line += fmt.Sprintf("; instrumented loop paired with it: p50 %.2fms, ratio %.3f", ours, ours/tot.P50)
	}
	if d := r.run.Counters[bench.DroppedIterations]; d > 0 {
		line += fmt.Sprintf(", dropped %d", d)
	}
	if r.run.Error != "" {
		line += "  ERROR: " + r.run.Error
	}
	return line
}

// rateList spells the rates as the flag takes them: "5,20,50,0".
func rateList(rates []float64) string {
	s := make([]string, len(rates))
	for i, r := range rates {
		s[i] = strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strings.Join(s, ",")
}

// clientWords says where the bench's workers ran: in process on franz-go,
// or each a process of another client stepped by the driver.
func clientWords(clients []string) string {
	c := strings.Join(clients, ",")
	if c == workerset.ClientGo || c == "" {
		return workerset.ClientGo + ": in-process workers (franz-go)"
	}
	return c + ": each worker its own process, stepped by the driver over stdin/stdout (ctp.WorkerConfig.Stepped); its latencies are its own client's"
}

// config is every setting that shaped the bench, printed in the report.
func (o *Options) config(c cluster.Cluster) map[string]string {
	lat := make([]string, len(o.Latencies))
	for i, l := range o.Latencies {
		lat[i] = l.String()
	}
	parts := make([]string, len(o.Partitions))
	for i, p := range o.Partitions {
		parts[i] = strconv.Itoa(p)
	}
	linkSemantics := "toxiproxy latency toxic on every link, both directions: a request/response round trip gains about twice the latency"
	if c.Name() == "embedded" {
		linkSemantics = "in-process toxiproxy on every client link, broker-to-client direction only: a round trip gains the latency once"
	}
	m := map[string]string{
		"rate":                rateList(o.Rates) + " txn/s over all workers (0: closed loop)",
		"duration":            o.Duration.String() + " measured per run",
		"warmup":              o.Warmup.String() + " per run at the same rate, left out of every figure",
		"workers":             strconv.Itoa(o.Workers) + " CTP workers per run, each under its own open-loop driver at rate/workers, schedules staggered",
		"client":              clientWords(o.Clients),
		"brokers":             strconv.Itoa(len(c.Nodes())),
		"partitions":          strings.Join(parts, ","),
		"link_latency":        strings.Join(lat, ","),
		"link_latency_how":    linkSemantics,
		"record_lock":         harness.DefaultLock.String(),
		"transaction_timeout": benchTxnTimeout.String(),
		"input":               fmt.Sprintf("pre-seeded per run: rate x (warm-up + duration) x batch + 25%% + 4 batches per worker, capped at %d records; topped up during the run only when capped or closed loop", o.MaxInput),
		"driver_backlog":      "one second of ticks per worker; a tick that finds it full is dropped (dropped_iterations)",
		"tail_reader":         "read_committed consumer in the orchestrator, fetch max wait " + tailMaxWait.String(),
		"run_topics":          "each run's own topics, share group and transactional ids; topics and group deleted after the run unless --keep-topics",
		"txn_acks":            o.TxnAcks,
		"on_unsupported":      o.OnUnsupported,
		"kip1289_member_tags": o.MemberTags + " (native: TxnShareAcknowledge with the proposed member id and epoch, or without them as the KIP is written)",
		"consumer":            o.Consumer + " (implicit, explicit; transactional: native on sharechaos, ledger on kgo)",
	}
	if o.Fault != "" {
		m["fault"] = o.Fault + " once per run during the measurement; figures split before / during / after"
	}
	return m
}
