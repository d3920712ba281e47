package cell

import (
	"strconv"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/suites/harness"
)

// Soak is a chaos cell's long form (--duration): instead of seeding every
// record before the workers start, a seeder writes --rate records per
// second for the whole duration while the workers run, and a cluster fault
// is injected again after each heal, --fault-pause later, until the
// duration ends; then the usual drain and check. The checker stays exact:
// every seeded record is an input, read back from the input topic as in
// any cell.
type Soak struct {
	// Duration is how long the seeder writes; zero seeds every record up
	// front (no soak).
	Duration time.Duration
	// Rate is the records per second the seeder writes.
	Rate float64
	// FaultPause separates a cluster fault's heal from its next injection.
	FaultPause time.Duration
}

// Soak defaults.
const (
	// DefaultSoakRate is well inside what three workers commit on these
	// 2-core machines in every mode (hundreds of records per second), so
	// a soak measures the loop under faults, not a backlog.
	DefaultSoakRate   = 100
	DefaultFaultPause = 10 * time.Second
	// maxSoakRecords is what the in-memory checker should hold for one
	// cell: it keeps about 1.4 KB per record (2 million: some 2.8 GB).
	maxSoakRecords = 2_000_000
	// seedTick is how often the seeder writes what is due.
	seedTick = 100 * time.Millisecond
	// maxSeedBatch bounds one produce call (a backlog after a stall is
	// written in parts), and so the seeder's memory.
	maxSeedBatch = 5000
	// seedEventEvery is how often the seeder puts a seed event on the
	// timeline (what it wrote since the last one).
	seedEventEvery = time.Second
)

func (s *Soak) Register(fs *flag.FlagSet) {
	fs.DurationVar(&s.Duration, "duration", 0, "soak: seed at --rate for this long while the workers run, cluster faults repeating, then drain and check (default: seed --records up front)")
	fs.Float64Var(&s.Rate, "rate", DefaultSoakRate, "soak: input records per second the seeder writes for --duration (records = rate x duration, in place of --records)")
	fs.DurationVar(&s.FaultPause, "fault-pause", DefaultFaultPause, "soak: the pause between a cluster fault's heal and its next injection")
}

func (s Soak) WithDefaults() Soak {
	if s.Rate == 0 {
		s.Rate = DefaultSoakRate
	}
	if s.FaultPause == 0 {
		s.FaultPause = DefaultFaultPause
	}
	return s
}

// Describe adds the soak's settings to the report's config.
func (s Soak) Describe(config map[string]string) {
	if s.Duration == 0 {
		return
	}
	config["soak_duration"] = s.Duration.String()
	config["soak_rate"] = strconv.FormatFloat(s.Rate, 'g', -1, 64) + " records/s"
	config["soak_fault_pause"] = s.FaultPause.String()
}

// Records is how many input records a soak cell seeds.
func (s Soak) Records() int { return max(1, int(s.Rate*s.Duration.Seconds())) }

func (s Soak) Validate() error {
	switch {
	case s.Duration < 0:
		return harness.Usagef("--duration %s: want a positive duration", s.Duration)
	case s.Rate <= 0:
		return harness.Usagef("--rate %g: want records per second, a positive number", s.Rate)
	case s.FaultPause < 0:
		return harness.Usagef("--fault-pause %s: want a positive duration", s.FaultPause)
	case s.Duration > 0 && s.Records() > maxSoakRecords:
		return harness.Usagef("--rate %g x --duration %s = %d records per cell: more than the in-memory checker should hold (%d, about 1.4 KB each); "+
			"lower --rate or --duration, or check runs that size with the large checker (workloads/ctp/check/large, `make bench-checker`)",
			s.Rate, s.Duration, s.Records(), maxSoakRecords)
	}
	return nil
}
