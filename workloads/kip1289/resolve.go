package kip1289

import (
	"fmt"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Choice is `--txn-acks`.
type Choice string

const (
	ChoiceAuto   Choice = "auto"
	ChoiceLedger Choice = "ledger"
	ChoiceNative Choice = "native"
)

// OnUnsupported is `--on-unsupported`: what `--txn-acks native` does on a
// broker without the RPCs.
type OnUnsupported string

const (
	OnUnsupportedFail     OnUnsupported = "fail"
	OnUnsupportedFallback OnUnsupported = "fallback"
)

// Realization names as reports spell them (ctp.Observation.Realization).
const (
	RealizationLedger = ctp.RealizationLedger
	RealizationNative = ctp.RealizationNative
)

// Mode is the ack mode a cell asked for transactional ends up running.
type Mode string

const (
	ModeTransactional Mode = "transactional"
	ModeExplicit      Mode = "explicit"
)

// Decision is how a transactional cell runs.
type Decision struct {
	Mode Mode
	// Realization is "ledger" or "native" in transactional mode, "" in explicit.
	Realization string
	// Warning, when set, goes into the report verbatim.
	Warning string
}

// Resolve applies CONTRACT.md's rules:
//
//   - auto: native when the brokers advertise both RPCs, else ledger;
//   - ledger: ledger, whatever the brokers speak;
//   - native on brokers without the RPCs: fail (the default) with an error
//     naming each missing API and its key, or, with fallback, explicit mode
//     and a warning for the report.
//
// A client that cannot run the native workload (Support.Blocked) turns auto
// into ledger with a warning, and native into an error that says why:
// falling back silently would report a realization that did not run.
func Resolve(choice Choice, on OnUnsupported, s Support) (Decision, error) {
	if on == "" {
		on = OnUnsupportedFail
	}
	if on != OnUnsupportedFail && on != OnUnsupportedFallback {
		return Decision{}, fmt.Errorf("resolve txn acks: --on-unsupported %q: want fail or fallback", on)
	}
	switch choice {
	case ChoiceLedger:
		return Decision{Mode: ModeTransactional, Realization: RealizationLedger}, nil
	case ChoiceAuto, "":
		if !s.Native {
			return Decision{Mode: ModeTransactional, Realization: RealizationLedger}, nil
		}
		if s.Blocked != nil {
			return Decision{Mode: ModeTransactional, Realization: RealizationLedger,
				Warning: fmt.Sprintf("brokers advertise KIP-1289 but the native workload cannot run (%v); ran the ledger realization", s.Blocked)}, nil
		}
		return Decision{Mode: ModeTransactional, Realization: RealizationNative}, nil
	case ChoiceNative:
		if !s.Native {
			unsupported := &UnsupportedError{Missing: s.Missing}
			if on == OnUnsupportedFail {
				return Decision{}, fmt.Errorf("resolve txn acks: --txn-acks native: %w", unsupported)
			}
			return Decision{Mode: ModeExplicit,
				Warning: fmt.Sprintf("--txn-acks native: %v; ran explicit mode instead (--on-unsupported fallback)", unsupported)}, nil
		}
		if s.Blocked != nil {
			return Decision{}, fmt.Errorf("resolve txn acks: --txn-acks native: %w", s.Blocked)
		}
		return Decision{Mode: ModeTransactional, Realization: RealizationNative}, nil
	}
	return Decision{}, fmt.Errorf("resolve txn acks: --txn-acks %q: want auto, ledger or native", choice)
}
