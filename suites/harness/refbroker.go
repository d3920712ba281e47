package harness

import (
	"fmt"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// RefBrokerEnv names the reference broker binary; RefBrokerOff in it runs
// the stock kfake instead (a broker without KIP-1289, e.g. to see
// --txn-acks native refused on embedded).
const (
	RefBrokerEnv    = "SHARECHAOS_REFBROKER"
	RefBrokerOff    = "off"
	refBrokerBinary = "sharechaos-refbroker"
)

// Pending-lock policies of the reference broker (refbroker/README.md):
// what a record's acquisition lock does while its ack is pending in a
// transaction.
const (
	// PendingLockExpire is the KIP as written: nothing stops the lock
	// expiring and the record being acquired again by someone else.
	PendingLockExpire = scenarios.PendingLockExpire
	// PendingLockHold: pending acks block re-acquisition until the
	// transaction ends.
	PendingLockHold = scenarios.PendingLockHold
	// DefaultPendingLock is expire: the suite judges KIP-1289 as written,
	// and a broker setting the KIP does not specify must be asked for by
	// name (--kip1289-pending-lock hold) rather than make a default run
	// PASS on behaviour no real broker promises.
	DefaultPendingLock = PendingLockExpire
)

// EmbeddedBroker is the broker child the embedded backend runs.
type EmbeddedBroker struct {
	// Reference is zero for the stock kfake.
	Reference embedded.Reference
	// Note says which broker and why, for the report.
	Note string
}

// Name is "refbroker" or "kfake", as reports name the broker.
func (b EmbeddedBroker) Name() string {
	if b.Reference.Binary != "" {
		return "refbroker"
	}
	return "kfake"
}

// Describe names the broker and, for the reference broker, its policy.
func (b EmbeddedBroker) Describe() string {
	if b.Reference.Binary != "" {
		return "refbroker (kfake with KIP-1289, pending lock " + b.Reference.PendingLock + ")"
	}
	return "kfake (stock, no KIP-1289)"
}

// ChooseEmbeddedBroker decides the embedded backend's broker: the reference
// broker when the run may use the native realization (transactional mode
// with --txn-acks native or auto, or transactional/native), else the stock
// kfake. A missing binary is a usage error when native was asked for; auto
// then runs the ledger on the stock kfake and says so.
func (c Common) ChooseEmbeddedBroker() (EmbeddedBroker, error) {
	asked, maybe := c.nativeWanted()
	if !asked && !maybe {
		return EmbeddedBroker{Note: "stock kfake: the native realization was not asked for"}, nil
	}
	if os.Getenv(RefBrokerEnv) == RefBrokerOff {
		return EmbeddedBroker{Note: "stock kfake: " + RefBrokerEnv + "=" + RefBrokerOff}, nil
	}
	path, searched := findRefBroker()
	if path == "" {
		if asked {
			return EmbeddedBroker{}, Usagef("the native realization on the embedded backend needs the reference broker %s, not found at %s: build it with `make refbroker` (or point %s at it)",
				refBrokerBinary, strings.Join(searched, ", "), RefBrokerEnv)
		}
		return EmbeddedBroker{Note: fmt.Sprintf("stock kfake: the reference broker was not found (%s; `make refbroker` builds it), so --txn-acks auto runs the ledger",
			strings.Join(searched, ", "))}, nil
	}
	ref := embedded.Reference{Binary: path, PendingLock: c.PendingLock,
		AddShareAcksToTxnKey: c.KIP1289Keys.AddShareAcksToTxn, TxnShareAcknowledgeKey: c.KIP1289Keys.TxnShareAcknowledge}
	return EmbeddedBroker{Reference: ref, Note: "refbroker " + path + ", pending lock " + c.PendingLock}, nil
}

// nativeWanted: asked, a realization whose acks the broker settles (the
// reference broker's reason to exist) was named; maybe, auto may choose one.
func (c Common) nativeWanted() (asked, maybe bool) {
	if !slices.Contains(c.Modes, ctp.Transactional) {
		return false, false
	}
	if len(c.Realizations) > 0 {
		return slices.ContainsFunc(c.Realizations, kip1289.BrokerSettles), false
	}
	return kip1289.BrokerSettles(c.TxnAcks), c.TxnAcks == string(kip1289.ChoiceAuto)
}

// findRefBroker looks in $SHARECHAOS_REFBROKER, next to the running binary,
// then in bin/ of the working directory and of each parent (a test binary
// runs in its package's directory).
func findRefBroker() (string, []string) {
	var candidates []string
	if p := os.Getenv(RefBrokerEnv); p != "" {
		candidates = append(candidates, p)
	} else {
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), refBrokerBinary))
		}
		if wd, err := os.Getwd(); err == nil {
			for dir := wd; ; dir = filepath.Dir(dir) {
				candidates = append(candidates, filepath.Join(dir, "bin", refBrokerBinary))
				if filepath.Dir(dir) == dir {
					break
				}
			}
		}
	}
	for _, p := range candidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			abs, err := filepath.Abs(p)
			if err != nil {
				abs = p
			}
			return abs, candidates
		}
	}
	return "", candidates
}
