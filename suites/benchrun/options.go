package benchrun

import (
	"math"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/harness"
)

// Options is one `sharechaos bench` invocation. Zero fields take the
// defaults below. Every run of the bench is one (sweep point, batch size,
// repeat, mode); the modes interleave inside each (point, batch, repeat).
type Options struct {
	harness.Common
	// Rates are the targets in transactions per second over all workers, a
	// sweep from low to high; 0 runs closed loop (each worker as fast as it
	// can), only as the last point: the load the mode sustains at most.
	Rates []float64
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
	// Workers are the in-process CTP workers per run, each driven at rate/Workers.
	Workers int
	// Fault names a cluster-fault scenario of the catalog injected once
	// during each run's measurement; "" for none.
	Fault string
	// Overhead measures the harness's own cost with a bare franz-go loop.
	Overhead bool
	// Alpha is the significance level of the comparisons.
	Alpha float64
	// MaxInput caps the input seeded before a run (records); more is added
	// while the run goes if it runs low.
	MaxInput int

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
	// DefaultPartitions of the input and output topics.
	DefaultPartitions = 4
)

// withDefaults returns o with every zero field set.
func (o Options) withDefaults() Options {
	o.Common = o.Common.WithDefaults()
	if len(o.Rates) == 0 {
		o.Rates = []float64{DefaultBenchRate}
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
	if o.Alpha == 0 {
		o.Alpha = bench.DefaultAlpha
	}
	if o.MaxInput == 0 {
		o.MaxInput = DefaultMaxInput
	}
	return o
}

// Validate checks the options before anything starts; a *UsageError names
// the flag.
func (o Options) Validated() (Options, error) {
	o = o.withDefaults()
	return o, o.validate()
}

func (o Options) validate() error {
	if err := o.Common.Validate(); err != nil {
		return err
	}
	if o.WorkerExec != "" {
		return usagef("--worker-exec: the bench steps its go workers in this process (its open-loop driver paces and times each step); workers on other hosts are for run and hunt")
	}
	for i, r := range o.Rates {
		switch {
		case r < 0 || math.IsNaN(r) || math.IsInf(r, 0):
			return usagef("--rate %v: want transactions per second, or 0 for a closed loop", r)
		case r == 0 && i < len(o.Rates)-1:
			return usagef("--rate %v: 0 (closed loop, as fast as the mode goes) is the sweep's last point, after every open-loop rate", o.Rates)
		case i > 0 && o.Rates[i-1] > 0 && r > 0 && r <= o.Rates[i-1]:
			return usagef("--rate %v: want the rates from low to high, each once (0, closed loop, last)", o.Rates)
		}
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
	if o.Alpha <= 0 || o.Alpha >= 1 {
		return usagef("--alpha %v: want a level in (0, 1)", o.Alpha)
	}
	if o.MaxInput < 1 {
		return usagef("--max-input %d: want a positive number of records", o.MaxInput)
	}
	if err := o.checkThresholds(); err != nil {
		return err
	}
	if o.Fault != "" {
		s, ok := scenarios.Lookup(o.Fault)
		if !ok {
			return usagef("--fault %q: unknown fault (cluster faults: %v)", o.Fault, clusterFaultNames())
		}
		if s.Cluster == nil {
			return usagef("--fault %q: a bench injects cluster faults only (%v); worker faults belong to sharechaos run", o.Fault, clusterFaultNames())
		}
	}
	return nil
}

// clusterFaultNames lists the catalog's cluster-fault scenarios.
func clusterFaultNames() []string {
	var out []string
	for _, s := range scenarios.All() {
		if s.Cluster != nil {
			out = append(out, s.Name)
		}
	}
	return out
}

var usagef = harness.Usagef

// benchTxnTimeout is the workers' transaction timeout: shorter than the lock
// (ORACLE.md), and long enough that a slow link never times a commit out.
const benchTxnTimeout = 10 * time.Second

// sweeps says whether the bench has more than one sweep point (link latency x
// partitions x rate).
func (o *Options) sweeps() bool { return len(o.Latencies)*len(o.Partitions)*len(o.Rates) > 1 }
