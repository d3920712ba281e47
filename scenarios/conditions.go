package scenarios

import (
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// Pending-lock policies of the reference broker (--kip1289-pending-lock):
// what a record's acquisition lock does while its ack is pending in a
// transaction.
const (
	// PendingLockExpire is the KIP as written: the lock still runs out and
	// another member can acquire the record.
	PendingLockExpire = "expire"
	// PendingLockHold: a pending ack keeps its record from re-acquisition
	// until the transaction ends.
	PendingLockHold = "hold"
)

// Conditions are what a cell ran under that its row's evidence depends on,
// beside its history. A live run has them from its options; a re-check
// (sharechaos check DIR) from the run's result.json config. Zero fields are
// unknown.
type Conditions struct {
	// PendingLock is the broker's pending-lock policy for the native
	// realization (PendingLockExpire, PendingLockHold); "" when the cell's
	// broker is not the reference broker, or the run does not say.
	PendingLock string
	// Lock is the acquisition lock the cell ran with.
	Lock time.Duration
	// Shape is the cell's (zero when unknown: an older stored run).
	Shape Shape
}

// EvidenceFor is what a cell of this row must show: the row's Evidence, or,
// for a native cell on a broker whose pending-lock policy the row names in
// EvidenceUnder, that policy's. The evidence must fit what the broker can
// do: under hold, a row whose evidence is a second acquisition while the
// first transaction was open could never show it.
//
// A row whose guarantee depends on transactions that span share-partitions
// (SpansPartitions) also needs one in a native cell, whose consumer asks
// every partition it was assigned in each poll, when some worker was bound
// to be assigned two partitions (more partitions than workers: a share
// group hands each partition to one member while it has more partitions
// than members) and a poll may hold two records (batch 2 or more). A
// A row whose fault takes a worker away asks it only where a surviving
// worker is bound to hold two partitions (boundToSpan). A failover row
// (PendingAcrossFault) needs, there, a transaction whose acks
// were pending when the fault fired or healed.
func (s Scenario) EvidenceFor(mode ctp.AckMode, realization string, c Conditions) []Evidence {
	ev := s.Evidence
	if mode == ctp.Transactional && kip1289.BrokerSettles(realization) {
		if under, ok := s.EvidenceUnder[c.PendingLock]; ok {
			ev = under
		}
		if s.SpansPartitions && boundToSpan(c.Shape, s.takesAWorker()) {
			ev = append(slices.Clone(ev), acksSpanned)
		}
		if s.SharesARequest && boundToShareARequest(c.Shape) {
			ev = append(slices.Clone(ev), acksSharedARequest)
		}
		if s.PendingAcrossFault {
			ev = append(slices.Clone(ev), acksPendingAcrossFault)
		}
		ev = append(slices.Clone(ev), s.SettledEvidence...)
	}
	return ev
}

// boundToSpan: some worker is bound to be assigned two partitions at once
// (a share group hands each partition to one member while it has more
// partitions than members) and a poll may hold two records. Where the
// row's fault takes a worker away, the one holding two may be the one
// taken, at its first batch, and its partitions come back to the others
// only after the share session times out, when they may have drained
// their own (docker, native, crash-after-acks: 1 repeat in 3 of a nightly
// never spanned, 4 partitions and 3 workers): there a surviving worker
// must be bound to hold two, P - ceil(P/W) > W - 1.
func boundToSpan(sh Shape, takesAWorker bool) bool {
	p, w := sh.Partitions, int32(sh.Workers)
	if sh.Batch < 2 || w < 1 || p <= w {
		return false
	}
	if !takesAWorker {
		return true
	}
	return p-(p+w-1)/w > w-1
}

// boundToShareARequest: some worker is bound to hold more share-partitions
// than there are brokers (more partitions than brokers times workers), so two
// of its share-partitions have one leader (one share coordinator, where the
// request goes there) and a poll may hold two records (batch 2 or more).
func boundToShareARequest(sh Shape) bool {
	return sh.Batch >= 2 && sh.Workers >= 1 && sh.Brokers >= 1 && int(sh.Partitions) > sh.Brokers*sh.Workers
}

// takesAWorker reports whether the row's fault ends an armed worker's
// loop mid-run (a kill, a stop whose zombie is fenced, a graceful stop).
func (s Scenario) takesAWorker() bool {
	if s.Worker == nil {
		return false
	}
	switch s.Worker.Action {
	case ctp.ActionKill, ctp.ActionStop, ctp.ActionTerm:
		return true
	}
	return false
}
