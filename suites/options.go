// Package suites runs scenarios: it builds the cluster, runs each cell
// (scenario x mode x backend x realization x repeat) through setup, seeding,
// load and fault, drain, check, and hands the results to the report writers.
// It is the only package that knows about every other one.
package suites

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// Options is one run's settings. Zero fields take the defaults below.
type Options struct {
	Backend   string // auto | embedded | docker
	Profile   string // smoke | nightly | qualification (when no Scenarios)
	Scenarios []string
	Modes     []ctp.AckMode
	Records   int
	Seed      int64
	Out       string
	Workers   int
	// Partitions of the input and output topics.
	Partitions int32
	Brokers    int
	// MaxRecords is the largest poll (one fetch per poll).
	MaxRecords int32
	Repeats    int
	// Thresholds are k6-style latency bounds on every cell they match
	// ("txn_commit_duration{mode:transactional}: p(99)<250ms"); failing one
	// makes the run THRESHOLD-FAILED. The qualification profile has defaults.
	Thresholds []string
	thresholds bench.Thresholds
	// Parallel is how many cells whose faults stay inside their own workers
	// run at once on the shared cluster (cluster faults always run alone).
	Parallel int
	// TxnAcks is auto | ledger | native; OnUnsupported is fail | fallback.
	TxnAcks       string
	OnUnsupported string
	// KIP1289Keys are the API keys of the KIP's RPCs (unallocated upstream:
	// the defaults are placeholders).
	KIP1289Keys kip1289.APIKeys
	// Lock is the acquisition lock; TxnTimeout the producers' transaction
	// timeout (shorter than the lock).
	Lock       time.Duration
	TxnTimeout time.Duration
	// DrainTimeout bounds the wait for the share group to finish the input.
	DrainTimeout time.Duration
	// Command is the command line, for the report's replay line.
	Command string
	// Progress receives the progress line (a terminal) or log lines.
	Progress     io.Writer
	ProgressLive bool
	Log          *slog.Logger

	progress *progressState
}

// Defaults.
const (
	DefaultRecords    = 2000
	DefaultWorkers    = 3
	DefaultPartitions = 4
	DefaultBrokers    = 3
	DefaultMaxRecords = 10
	// DefaultParallel cells at once: the cells are mostly waiting on the
	// cluster, and two fit these 2-core machines.
	DefaultParallel = 2
	// QualificationRepeats: the qualification profile runs nightly this often.
	QualificationRepeats = 3
	DefaultLock          = 15 * time.Second
	DefaultDrainTimeout  = 3 * time.Minute
)

func (o *Options) defaults() {
	if o.Backend == "" {
		o.Backend = "auto"
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
	if o.Brokers == 0 {
		o.Brokers = DefaultBrokers
	}
	if o.MaxRecords == 0 {
		o.MaxRecords = DefaultMaxRecords
	}
	if o.Repeats == 0 {
		o.Repeats = 1
		if o.Profile == "qualification" && len(o.Scenarios) == 0 {
			o.Repeats = QualificationRepeats
		}
	}
	if len(o.Thresholds) == 0 && o.Profile == "qualification" && len(o.Scenarios) == 0 {
		o.Thresholds = qualificationThresholds
	}
	if o.Parallel == 0 {
		o.Parallel = DefaultParallel
	}
	if o.TxnAcks == "" {
		o.TxnAcks = "auto"
	}
	if o.OnUnsupported == "" {
		o.OnUnsupported = "fail"
	}
	if o.Lock == 0 {
		o.Lock = DefaultLock
	}
	if o.TxnTimeout == 0 {
		o.TxnTimeout = o.Lock * 2 / 3
	}
	if o.DrainTimeout == 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if len(o.Modes) == 0 {
		o.Modes = []ctp.AckMode{ctp.Transactional, ctp.Explicit, ctp.Implicit}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.progress == nil {
		o.progress = &progressState{last: map[string]time.Time{}}
	}
}

// UsageError is a bad option: nothing was run (exit 64).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// validateChoices checks the flags run and bench share.
func validateChoices(backend, txnAcks, onUnsupported string, modes []ctp.AckMode) error {
	switch backend {
	case "auto", "embedded", "docker":
	default:
		return usagef("--backend %q: want auto, embedded or docker", backend)
	}
	switch txnAcks {
	case "auto", "ledger", "native":
	default:
		return usagef("--txn-acks %q: want auto, ledger or native", txnAcks)
	}
	switch onUnsupported {
	case "fail", "fallback":
	default:
		return usagef("--on-unsupported %q: want fail or fallback", onUnsupported)
	}
	for i, m := range modes {
		switch m {
		case ctp.Implicit, ctp.Explicit, ctp.Transactional:
		default:
			return usagef("--mode %q: want transactional, explicit or implicit", m)
		}
		if slices.Contains(modes[:i], m) {
			return usagef("--mode %q: given twice", m)
		}
	}
	return nil
}

// Validate checks the options before anything starts.
func (o *Options) Validate() error {
	o.defaults()
	if err := validateChoices(o.Backend, o.TxnAcks, o.OnUnsupported, o.Modes); err != nil {
		return err
	}
	if o.Records <= 0 {
		return usagef("--records %d: want a positive number", o.Records)
	}
	if o.Workers <= 0 || o.Workers > 64 {
		return usagef("--workers %d: want 1 to 64", o.Workers)
	}
	if o.Parallel < 0 || o.Parallel > 16 {
		return usagef("--parallel %d: want 1 to 16", o.Parallel)
	}
	if o.Partitions <= 0 {
		return usagef("--partitions %d: want a positive number", o.Partitions)
	}
	if o.Brokers <= 0 {
		return usagef("--brokers %d: want a positive number", o.Brokers)
	}
	if o.TxnTimeout >= o.Lock {
		return usagef("--txn-timeout %s must be shorter than --lock %s (ORACLE.md: a transaction must not outlive its records' locks)", o.TxnTimeout, o.Lock)
	}
	ts, err := bench.ParseThresholds(o.Thresholds)
	if err != nil {
		return usagef("--threshold: %v", err)
	}
	o.thresholds = ts
	if err := o.KIP1289Keys.Validate(); err != nil {
		return usagef("--kip1289-keys: %v", err)
	}
	if _, err := o.scenarios(); err != nil {
		return err
	}
	return nil
}
