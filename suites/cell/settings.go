package cell

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// Env is what every cell of a run shares.
type Env struct {
	Cluster cluster.Cluster
	// RunID prefixes every cell's topics, group and transactional ids;
	// RunDir holds the cells' directories.
	RunID, RunDir string
	Display       Display
	Log           *slog.Logger
	// Deletions are the cells' topic deletions still running in the
	// background (cleanup.go): the run waits for them before it closes the
	// cluster, and a cluster-fault row before its load (schedule).
	// GroupDeletions are their share groups' deletions, which follow: the
	// run waits for them before it closes the cluster only (a group's
	// deletion can take Kafka ten seconds, and a fault it meets is retried
	// through).
	Deletions, GroupDeletions *sync.WaitGroup
	// Remote runs the workers on other hosts (--worker-exec); nil: here.
	Remote *workerset.Remote
}

// Load is a cell's shape: the run's, or its row's own (WithLoad).
type Load struct {
	Records, Workers  int
	Partitions, Batch int32
}

// Settings are what a cell runs with: the run's options, after its row's
// own load.
type Settings struct {
	Load
	// Lock is the acquisition lock; TxnTimeout the producers' transaction
	// timeout (shorter than the lock); DrainTimeout bounds the wait for the
	// share group to finish the input.
	Lock, TxnTimeout, DrainTimeout time.Duration
	Soak                           Soak
	// KIP1289Keys and MemberTags go to the workers (native realization).
	KIP1289Keys kip1289.APIKeys
	MemberTags  string
	// KeepTopics keeps each cell's topics and share group.
	KeepTopics bool
	// Conditions are what the rows' evidence depends on (the pending-lock
	// policy, the lock).
	Conditions scenarios.Conditions
}

// WithLoad returns the settings a scenario's cells run with: s, with the
// row's own load (scenarios.Load) in place of the run's where the row sets
// it, and a note naming what the row changed. The lock is the cluster's (the
// embedded broker takes it at start), so a row cannot change it here.
func (s Settings) WithLoad(row scenarios.Scenario) (Settings, string) {
	l := row.Load
	var changed []string
	// A soak's records are its rate times its duration.
	if l.Records > 0 && l.Records != s.Records && s.Soak.Duration == 0 {
		s.Records = l.Records
		changed = append(changed, fmt.Sprintf("records %d", l.Records))
	}
	if l.Workers > 0 && l.Workers != s.Workers {
		s.Workers = l.Workers
		changed = append(changed, fmt.Sprintf("workers %d", l.Workers))
	}
	if l.Batch > 0 && l.Batch != s.Batch {
		s.Batch = l.Batch
		changed = append(changed, fmt.Sprintf("batch %d", l.Batch))
	}
	if l.Partitions > 0 && l.Partitions != s.Partitions {
		s.Partitions = l.Partitions
		changed = append(changed, fmt.Sprintf("partitions %d", l.Partitions))
	}
	if len(changed) == 0 {
		return s, ""
	}
	return s, "the scenario runs with its own load: " + strings.Join(changed, ", ")
}

// Shape is the cell's shape as rows' preconditions read it.
func (s Settings) Shape(c cluster.Cluster) scenarios.Shape {
	return scenarios.Shape{Workers: s.Workers, Partitions: s.Partitions, Batch: s.Batch, Brokers: len(c.Nodes())}
}
