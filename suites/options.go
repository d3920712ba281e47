// Package suites is the chaos runner's order (run.go): it validates the
// options, starts the cluster, plans the cells (scenario x mode x backend x
// realization x repeat), runs them (schedule.go: the pool, then each cluster
// fault's row; one cell is suites/cell's pipeline), and has the run judged
// and written (suites/judge). The bench is suites/benchrun; what both share
// is suites/harness.
package suites

import (
	flag "github.com/spf13/pflag"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/cell"
	"github.com/sharechaos/sharechaos/suites/harness"
)

// Options is one run's settings (user settings only: the runtime state is in
// the runner). Zero fields take the defaults below.
type Options struct {
	harness.Common
	Profile   string // a scenarios profile (when no Scenarios)
	Scenarios []string
	Records   int
	Workers   int
	// Partitions of the input and output topics.
	Partitions int32
	// MaxRecords is the largest poll (one fetch per poll).
	MaxRecords int32
	Repeats    int
	// Parallel is how many cells whose faults stay inside their own workers
	// run at once on the shared cluster (cluster faults always run alone).
	Parallel int
	// Clusters is 1, or 2: a second cluster runs the cells whose faults
	// stay inside their own workers, then every third cluster-fault row,
	// while the first runs the other rows (the nightly's two phases overlap
	// instead of following each other; the brokers mostly wait).
	Clusters int
	// Lock is the acquisition lock; TxnTimeout the producers' transaction
	// timeout (shorter than the lock).
	Lock       time.Duration
	TxnTimeout time.Duration
	// DrainTimeout bounds the wait for the share group to finish the input.
	DrainTimeout time.Duration
	// Soak is --duration and its companions (cell.Soak): zero Duration
	// seeds every record up front.
	cell.Soak
	// ProgressLive: Progress is a terminal (one rewritten line).
	ProgressLive bool
	// ProgressColor: the live display may colour (the CLI clears it for NO_COLOR).
	ProgressColor bool
	// Catalog is what --scenario and --profile can name (nil: the built-in
	// catalog; a scenario file adds rows and profiles with scenarios.WithExtra).
	Catalog *scenarios.Catalog
}

// catalog is the run's catalog.
func (o Options) catalog() scenarios.Catalog {
	if o.Catalog != nil {
		return *o.Catalog
	}
	return scenarios.Catalog{}
}

// Defaults.
const (
	DefaultRecords    = 2000
	DefaultWorkers    = 3
	DefaultPartitions = 4
	DefaultMaxRecords = 10
	// DefaultParallel cells at once: the pool's cells mostly wait (for
	// lock expiries, transaction timeouts, stalls), so four fit a 2-core
	// machine beside three brokers.
	DefaultParallel     = 4
	DefaultDrainTimeout = 3 * time.Minute
)

// Register registers run's flags on fs: the shared ones once, through
// harness, then run's own.
func (o *Options) Register(fs *flag.FlagSet, lists *harness.CommonLists, scenarioList *harness.ListFlag) {
	o.Common.Register(fs, lists)
	fs.StringVar(&o.Profile, "profile", scenarios.DefaultProfile, "the set of scenarios when --scenario is not given: "+strings.Join(scenarios.ProfileNames(), " | "))
	fs.Var(scenarioList, "scenario", "scenario names, repeated or comma-separated (overrides --profile)")
	fs.IntVar(&o.Records, "records", 0, "input records per cell (default: the profile's, nightly 1000, else 2000)")
	fs.IntVar(&o.Workers, "workers", DefaultWorkers, "worker processes per cell")
	fs.Int32Var(&o.Partitions, "partitions", DefaultPartitions, "partitions of the input and output topics")
	fs.Int32Var(&o.MaxRecords, "batch", DefaultMaxRecords, "records per poll, and so at most per transaction")
	fs.IntVar(&o.Repeats, "repeats", 0, "run every cell this many times (default: the profile's, else 1)")
	fs.IntVar(&o.Parallel, "parallel", DefaultParallel, "cells run at once when their faults stay inside their own workers (a cluster fault runs alone, or once for all modes of its row)")
	fs.IntVar(&o.Clusters, "clusters", 1, "1, or 2: a second cluster runs the cells whose faults stay inside their workers, then a third of the cluster-fault rows, while the first runs the other rows (not with --backend external)")
	fs.DurationVar(&o.Lock, "lock", harness.DefaultLock, "acquisition lock duration")
	fs.DurationVar(&o.TxnTimeout, "txn-timeout", 0, "transaction timeout, shorter than --lock (default: 2/3 of --lock)")
	fs.DurationVar(&o.DrainTimeout, "drain-timeout", DefaultDrainTimeout, "how long to wait for the share group to finish the input")
	o.Soak.Register(fs)
}

// withDefaults returns o with every zero field set, the profile's records,
// repeats and thresholds included.
func (o Options) withDefaults() Options {
	o.Common = o.Common.WithDefaults()
	if o.Profile == "" {
		o.Profile = scenarios.DefaultProfile
	}
	if p, ok := o.catalog().LookupProfile(o.Profile); ok && len(o.Scenarios) == 0 && o.Records == 0 {
		o.Records = p.Records
	}
	if o.Records == 0 {
		o.Records = DefaultRecords
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.Partitions == 0 {
		o.Partitions = DefaultPartitions
	}
	if o.MaxRecords == 0 {
		o.MaxRecords = DefaultMaxRecords
	}
	if p, ok := o.catalog().LookupProfile(o.Profile); ok && len(o.Scenarios) == 0 {
		if o.Repeats == 0 {
			o.Repeats = p.Repeats
		}
		if len(o.Thresholds) == 0 {
			o.Thresholds = p.Thresholds
		}
	}
	if o.Repeats == 0 {
		o.Repeats = 1
	}
	if o.Clusters == 0 {
		o.Clusters = 1
	}
	if o.Parallel == 0 {
		o.Parallel = DefaultParallel
	}
	if o.Lock == 0 {
		o.Lock = harness.DefaultLock
	}
	if o.TxnTimeout == 0 {
		o.TxnTimeout = o.Lock * 2 / 3
	}
	if o.DrainTimeout == 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	o.Soak = o.Soak.WithDefaults()
	if o.Duration > 0 {
		o.Records = o.Soak.Records()
	}
	return o
}

// Validated returns o with its defaults, or a *harness.UsageError naming
// the flag. It never changes o.
func (o Options) Validated() (Options, error) {
	o = o.withDefaults()
	if err := o.Common.Validate(); err != nil {
		return o, err
	}
	switch {
	case o.Records <= 0:
		return o, harness.Usagef("--records %d: want a positive number", o.Records)
	case o.Workers <= 0 || o.Workers > 64:
		return o, harness.Usagef("--workers %d: want 1 to 64", o.Workers)
	case o.Parallel < 0 || o.Parallel > 16:
		return o, harness.Usagef("--parallel %d: want 1 to 16", o.Parallel)
	case o.Clusters < 1 || o.Clusters > 2:
		return o, harness.Usagef("--clusters %d: want 1 or 2", o.Clusters)
	case o.Clusters == 2 && o.Backend == "external":
		return o, harness.Usagef("--clusters 2 starts a second cluster: not with --backend external (a cluster the suite did not start)")
	case o.Partitions <= 0:
		return o, harness.Usagef("--partitions %d: want a positive number", o.Partitions)
	case o.MaxRecords <= 0:
		return o, harness.Usagef("--batch %d: want a positive number", o.MaxRecords)
	case o.Repeats <= 0:
		return o, harness.Usagef("--repeats %d: want a positive number", o.Repeats)
	case o.TxnTimeout >= o.Lock:
		return o, harness.Usagef("--txn-timeout %s must be shorter than --lock %s (ORACLE.md: a transaction must not outlive its records' locks)", o.TxnTimeout, o.Lock)
	case len(o.Backends.Docker.KafkaImages) > 1:
		return o, harness.Usagef("--kafka-image %s: a run qualifies one image (sharechaos bench compares several side by side; --kafka-version runs releases side by side)",
			strings.Join(o.Backends.Docker.KafkaImages, ","))
	}
	if err := o.Soak.Validate(); err != nil {
		return o, err
	}
	if _, err := o.scenarios(); err != nil {
		return o, err
	}
	if err := o.checkThresholds(); err != nil {
		return o, err
	}
	return o, nil
}

// scenarios resolves --scenario or --profile into catalog rows.
func (o Options) scenarios() ([]scenarios.Scenario, error) {
	names := o.Scenarios
	if len(names) == 0 {
		p, ok := o.catalog().LookupProfile(o.Profile)
		if !ok {
			return nil, harness.Usagef("--profile %q: want one of %s", o.Profile, strings.Join(o.catalog().ProfileNames(), ", "))
		}
		names = p.Scenarios
	}
	var out []scenarios.Scenario
	for _, n := range names {
		s, ok := o.catalog().Lookup(n)
		if !ok {
			return nil, harness.Usagef("unknown scenario %q (known: %s)", n, strings.Join(o.catalog().Names(), ", "))
		}
		out = append(out, s)
	}
	return out, nil
}
