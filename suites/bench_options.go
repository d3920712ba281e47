package suites

import (
	"io"
	"log/slog"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// BenchOptions is one `sharechaos bench` invocation. Zero fields take the
// defaults below. Every run of the bench is one (sweep point, batch size,
// repeat, mode); the modes interleave inside each (point, batch, repeat).
type BenchOptions struct {
	Backend string // auto | embedded | docker
	Modes   []ctp.AckMode
	// Rate is the target in transactions per second over all workers; 0 runs
	// closed loop (each worker as fast as it can).
	Rate float64
	// Duration is each run's measured load; Warmup runs before it at the same
	// rate and is left out of every histogram and counter.
	Duration time.Duration
	Warmup   time.Duration
	Repeats  int
	// Batches are the records per transaction (the poll's maximum: one fetch
	// per poll, so a transaction takes at most one batch).
	Batches []int
	// Partitions of the input and output topics: a sweep.
	Partitions []int
	// Latencies toxiproxy adds to every link: a sweep; 0 is none.
	Latencies []time.Duration
	// Workers are the in-process CTP workers per run, each driven at Rate/Workers.
	Workers int
	Brokers int
	// Thresholds are k6-style texts ("txn_commit_duration: p(99)<250ms").
	Thresholds []string
	// Fault names a cluster fault (faults.Table, TargetCluster) injected once
	// during each run's measurement; "" for none.
	Fault string
	Seed  int64
	Out   string
	// TxnAcks is auto | ledger | native; OnUnsupported is fail | fallback.
	TxnAcks       string
	OnUnsupported string
	KIP1289Keys   kip1289.APIKeys
	// Overhead measures the harness's own cost with a bare franz-go loop.
	Overhead bool
	// Alpha is the significance level of the comparisons.
	Alpha float64
	// KeepTopics keeps every run's topics and share group on the cluster
	// (deleted after each run by default).
	KeepTopics bool
	// MaxInput caps the input seeded before a run (records); more is added
	// while the run goes if it runs low.
	MaxInput int
	Command  string
	Progress io.Writer
	Log      *slog.Logger

	// testStall, set by tests only, makes worker 1's first measured iteration
	// at or after testStall.after sleep testStall.d before its Step: a slow
	// iteration the corrected latencies must show.
	testStall struct{ after, d time.Duration }
}

// Bench defaults.
const (
	DefaultBenchRate     = 20
	DefaultBenchDuration = 10 * time.Second
	DefaultBenchWarmup   = 3 * time.Second
	DefaultBenchRepeats  = 5
	DefaultBenchWorkers  = 2
	// DefaultMaxInput caps the records seeded before a run: at 100 bytes a
	// record, about 50 MB on the brokers and a few seconds to write.
	DefaultMaxInput = 400_000
)

func (o *BenchOptions) defaults() {
	if o.Backend == "" {
		o.Backend = "auto"
	}
	if len(o.Modes) == 0 {
		o.Modes = []ctp.AckMode{ctp.Transactional, ctp.Explicit, ctp.Implicit}
	}
	if o.Duration == 0 {
		o.Duration = DefaultBenchDuration
	}
	if o.Repeats == 0 {
		o.Repeats = DefaultBenchRepeats
	}
	if len(o.Batches) == 0 {
		o.Batches = []int{1, 10, 100}
	}
	if len(o.Partitions) == 0 {
		o.Partitions = []int{DefaultPartitions}
	}
	if len(o.Latencies) == 0 {
		o.Latencies = []time.Duration{0}
	}
	if o.Workers == 0 {
		o.Workers = DefaultBenchWorkers
	}
	if o.Brokers == 0 {
		o.Brokers = DefaultBrokers
	}
	if o.TxnAcks == "" {
		o.TxnAcks = "auto"
	}
	if o.OnUnsupported == "" {
		o.OnUnsupported = "fail"
	}
	if o.Alpha == 0 {
		o.Alpha = bench.DefaultAlpha
	}
	if o.MaxInput == 0 {
		o.MaxInput = DefaultMaxInput
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
}

// Validate checks the options before anything starts; a *UsageError names
// the flag.
func (o *BenchOptions) Validate() error {
	o.defaults()
	if err := validateChoices(o.Backend, o.TxnAcks, o.OnUnsupported, o.Modes); err != nil {
		return err
	}
	if o.Rate < 0 {
		return usagef("--rate %v: want transactions per second, or 0 for a closed loop", o.Rate)
	}
	if o.Duration <= 0 {
		return usagef("--duration %v: want a positive duration", o.Duration)
	}
	if o.Warmup < 0 {
		return usagef("--warmup %v: want 0 or a positive duration", o.Warmup)
	}
	if o.Repeats < 1 || o.Repeats > 1000 {
		return usagef("--repeats %d: want 1 to 1000", o.Repeats)
	}
	for _, b := range o.Batches {
		if b < 1 || b > 10_000 {
			return usagef("--batch %d: want 1 to 10000 records per transaction", b)
		}
	}
	for _, p := range o.Partitions {
		if p < 1 || p > 1000 {
			return usagef("--partitions %d: want 1 to 1000", p)
		}
	}
	for _, l := range o.Latencies {
		if l < 0 {
			return usagef("--latency %v: want 0 or a positive duration", l)
		}
	}
	if o.Workers < 1 || o.Workers > 64 {
		return usagef("--workers %d: want 1 to 64", o.Workers)
	}
	if o.Brokers < 1 {
		return usagef("--brokers %d: want a positive number", o.Brokers)
	}
	if o.Alpha <= 0 || o.Alpha >= 1 {
		return usagef("--alpha %v: want a level in (0, 1)", o.Alpha)
	}
	if o.MaxInput < 1 {
		return usagef("--max-input %d: want a positive number of records", o.MaxInput)
	}
	if _, err := bench.ParseThresholds(o.Thresholds); err != nil {
		return usagef("--threshold: %v", err)
	}
	if o.Fault != "" {
		f, ok := faults.Lookup(o.Fault)
		if !ok {
			return usagef("--fault %q: unknown fault (cluster faults: %v)", o.Fault, clusterFaultNames())
		}
		if f.Target != faults.TargetCluster {
			return usagef("--fault %q: a bench injects cluster faults only (%v); worker faults belong to sharechaos run", o.Fault, clusterFaultNames())
		}
	}
	if err := o.KIP1289Keys.Validate(); err != nil {
		return usagef("--kip1289-keys: %v", err)
	}
	return nil
}

func clusterFaultNames() []string {
	var out []string
	for _, f := range faults.Table {
		if f.Target == faults.TargetCluster {
			out = append(out, f.Name)
		}
	}
	return out
}

// chaosOptions are the run options the shared backend and negotiation code
// takes.
func (o *BenchOptions) chaosOptions() *Options {
	c := &Options{Backend: o.Backend, Brokers: o.Brokers, Modes: o.Modes, TxnAcks: o.TxnAcks,
		OnUnsupported: o.OnUnsupported, KIP1289Keys: o.KIP1289Keys, Log: o.Log, Seed: o.Seed,
		Lock: DefaultLock}
	c.defaults()
	return c
}

// benchTxnTimeout is the workers' transaction timeout: shorter than the lock
// (ORACLE.md), and long enough that a slow link never times a commit out.
const benchTxnTimeout = 10 * time.Second

// sweeps says whether the bench has more than one sweep point (link latency x
// partitions).
func (o *BenchOptions) sweeps() bool { return len(o.Latencies)*len(o.Partitions) > 1 }
