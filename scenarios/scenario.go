// Package scenarios is the corner-case catalog: one row per scenario, holding
// everything about it in one place (etcd's robustness scenarios compose a
// failpoint with traffic and a cluster the same way):
//
//   - the fault: a worker arm (point, action, stall, fresh id, delivery
//     timeout, and the orchestrator's half, such as the zombie's
//     choreography) or a cluster fault (mechanism and needs, from faults/);
//   - the KIP case it tests (ORACLE.md);
//   - per ack mode, keyed by mode, the anomalies that mode allows and the
//     N/A cells, each with its ORACLE.md reason;
//   - optional load and cluster settings of its own.
//
// Profiles (smoke, nightly, qualification) are data over the same rows. A new
// corner case is a new row; a new mode is a new key in the rows that allow it
// anything (a row that does not name a mode allows it nothing: strict, never
// hiding an anomaly).
package scenarios

import (
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Scenario is one row of the catalog.
type Scenario struct {
	// Name is stable kebab-case: it appears in reports, test names and flags.
	Name string
	// About is one line for --help and the reports.
	About string
	// Case cites ORACLE.md: a KIP-1289 case number, "baseline" or "beyond".
	Case string
	// Worker arms one worker at a point of its loop; Cluster acts on brokers
	// or links. Neither is the steady baseline; both, a worker arm that
	// fires in its own worker beside the cluster fault (no Conduct: a cell
	// drives one injection).
	Worker  *WorkerFault
	Cluster *ClusterFault
	// Expect is, per mode, what the mode tolerates in this scenario.
	Expect map[ctp.AckMode]Expectation
	// Load overrides the run's load settings for this scenario's cells.
	Load Load
	// Evidence is what every cell's history must show for the fault to count
	// as having happened (evidence.go); a cell that lacks any piece is
	// UNKNOWN naming it. The steady baseline has none.
	Evidence []Evidence
	// EvidenceUnder replaces Evidence for the native realization's cells on
	// a broker with the named pending-lock policy (Conditions.PendingLock):
	// evidence that policy can show (EvidenceFor).
	EvidenceUnder map[string][]Evidence
	// NotIn names the transactional realizations in which the case cannot
	// happen, with why (reported N/A for that realization's cells, never
	// PASS or UNKNOWN).
	NotIn map[string]string
	// Requires is the least shape (workers, partitions, batch, brokers) the
	// row's cells need; a cell with less is N/A, naming it (NAReason).
	Requires ShapeNeed
	// SpansPartitions: what the row proves depends on transactions whose
	// acks span share-partitions (a broker that commits only the first
	// partition's acks must not pass it), so where the realization puts the
	// acks into the transaction and the shape allows it, the cell must
	// show such a transaction (EvidenceFor).
	SpansPartitions bool
	// SharesARequest: what the row proves depends on one TxnShareAcknowledge
	// carrying acks of several share-partitions of one broker (a broker that
	// handles only the first share-partition of a request must not pass it);
	// where the realization's broker settles the acks and the shape makes
	// one bound (boundToShareARequest), the cell must show one.
	SharesARequest bool
	// PendingAcrossFault: the row is a failover (a leader or coordinator
	// goes away or comes back), and what it proves of a realization whose
	// broker settles the acks is that the failover met acks pending in a
	// transaction; such a cell must show one (EvidenceFor). Case 4 needs no
	// flag: its fault fires at a commit whose markers it holds.
	PendingAcrossFault bool
	// SettledEvidence is what a cell must show besides Evidence where the
	// broker settles the acks (the native realization): that the fault met
	// them at the broker (EvidenceFor).
	SettledEvidence []Evidence
	// GroupConfigs are share-group configs the row sets besides the run's
	// (share.renew.acknowledge.enable=false); a broker that does not know
	// one makes the cell N/A, naming it.
	GroupConfigs map[string]string
	// Features are the finalized feature levels the row needs (the share
	// groups' dead-letter queue: share.version 2); a cluster below one makes
	// the cell N/A, naming the level it has.
	Features map[string]int16
	// Poison: every PoisonEvery-th input (from an offset the cell draws)
	// cannot be processed: the workers RELEASE it until the broker archives
	// it (ctp.Poison). DLQ: the cell's group gets a dead-letter topic of its
	// own (KIP-1191), and the checker matches it with what was archived.
	PoisonEvery int
	DLQ         bool
	// KnownBug, on a row that reproduces a bug of Apache Kafka's own, names
	// the upstream fix: the row must be ANOMALY (with the anomaly named) on
	// a release without the fix and PASS on one with it. Such rows make the
	// known-bugs profile, and stay out of the nightly's.
	KnownBug *KnownBug
}

// KnownBug is an upstream Kafka bug a row reproduces (docs/KNOWN-BUGS.md).
type KnownBug struct {
	// Fix is the upstream change that fixed it ("apache/kafka #23074").
	Fix string
	// FixedIn is the first release of each line that carries the fix.
	FixedIn []string
	// Shows is the anomaly the row shows on a release without the fix.
	Shows string
}

// WorkerFault is a fault the armed worker fires itself, at its point.
type WorkerFault struct {
	Point  ctp.Point
	Action ctp.Action
	// Stall is how long ActionStall holds the transaction, given the cell's
	// acquisition lock.
	Stall func(lock time.Duration) time.Duration
	// FreshID: the crashed worker's replacement gets a new transactional id,
	// so only the transaction timeout ends the old transaction.
	FreshID bool
	// DeliveryTimeout, when set, bounds every worker's produce in the cell,
	// so a produce fault surfaces as an error in time (case 7).
	DeliveryTimeout time.Duration
	// TxnTimeout, when set, is every worker's transaction timeout given the
	// lock, overriding the run's: a row that lets a transaction outlive its
	// records' locks on purpose (ORACLE.md forbids it in a correct setup).
	TxnTimeout func(lock time.Duration) time.Duration
	// Conduct is the orchestrator's half of the fault (nil: none).
	Conduct faults.Conduct
	// Renew: the workers renew the locks of a batch they hold past its
	// processing (ctp.Renew, KIP-1222), every third of the lock.
	Renew bool
}

// ClusterFault is a fault that acts on brokers or links.
type ClusterFault struct {
	faults.Mechanism
	// AfterLoad is the fraction of the input done before the fault acts (0:
	// it waits for its own moment, as case 4 waits for a commit to hold).
	AfterLoad float64
}

// Triggered is the mechanism with its load trigger.
func (c ClusterFault) Triggered() faults.Mechanism {
	if c.AfterLoad > 0 {
		return c.Mechanism.UnderLoad(c.AfterLoad)
	}
	return c.Mechanism
}

// Expectation is what one mode tolerates in a scenario.
type Expectation struct {
	// Allowed maps an anomaly name to why the mode allows it, in ORACLE.md's
	// words.
	Allowed map[string]string
	// NotApplicable, when set, says why the case does not exist in the mode
	// (reported N/A, never PASS).
	NotApplicable string
	// KeptBy, when set, names what keeps the mode's guarantee in this
	// scenario (the ledger's validation), for the cell's notes.
	KeptBy string
}

// Load is a scenario's own load and cluster settings; zero fields take the
// run's.
type Load struct {
	Records    int
	Workers    int
	Batch      int32
	Partitions int32
	Lock       time.Duration
}

// Target says what the scenario's fault acts on: "none", "worker" or
// "cluster". Cells whose faults stay inside their own workers can share the
// cluster; a cluster fault disturbs every cell, so it runs alone.
func (s Scenario) Target() string {
	switch {
	case s.Cluster != nil:
		return "cluster"
	case s.Worker != nil:
		return "worker"
	}
	return "none"
}

// HasFault reports whether the scenario injects anything.
func (s Scenario) HasFault() bool { return s.Target() != "none" }

// ExpectFor is what mode tolerates; a mode the row does not name tolerates
// nothing.
func (s Scenario) ExpectFor(mode ctp.AckMode) Expectation {
	e := s.Expect[mode]
	allowed := make(map[string]string, len(e.Allowed))
	for k, v := range e.Allowed {
		allowed[k] = v
	}
	return Expectation{Allowed: allowed, NotApplicable: e.NotApplicable, KeptBy: e.KeptBy}
}

// NAReason says why the scenario cannot run in mode on c with shape, or ""
// when it can: the one place that decides N/A before a cell starts. shape is
// the cell's own (Load.Over the run's); its unknown fields are not judged,
// and a nil c (a re-check) judges no backend capability.
func (s Scenario) NAReason(mode ctp.AckMode, realization string, c cluster.Cluster, shape Shape) string {
	if why := s.Expect[mode].NotApplicable; why != "" {
		return why
	}
	if why := s.NotIn[realization]; why != "" && mode == ctp.Transactional {
		return why
	}
	if s.Cluster != nil && s.Cluster.Needs != nil && c != nil {
		if why := s.Cluster.Needs(c); why != "" {
			return why
		}
	}
	return s.Requires.lackedBy(shape)
}
