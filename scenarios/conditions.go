package scenarios

import (
	"time"

	"github.com/sharechaos/sharechaos/workloads/ctp"
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
}

// EvidenceFor is what a cell of this row must show: the row's Evidence, or,
// for a native cell on a broker whose pending-lock policy the row names in
// EvidenceUnder, that policy's. The evidence must fit what the broker can
// do: under hold, a row whose evidence is a second acquisition while the
// first transaction was open could never show it.
func (s Scenario) EvidenceFor(mode ctp.AckMode, realization string, c Conditions) []Evidence {
	if mode == ctp.Transactional && realization == ctp.RealizationNative {
		if ev, ok := s.EvidenceUnder[c.PendingLock]; ok {
			return ev
		}
	}
	return s.Evidence
}
