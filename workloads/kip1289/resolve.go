package kip1289

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Choice is `--txn-acks`: ChoiceAuto, or a realization's name.
type Choice string

// ChoiceAuto runs the first realization the brokers support (Realizations'
// order).
const ChoiceAuto Choice = "auto"

// Choices are what --txn-acks accepts: auto, then every realization.
func Choices() []string { return append([]string{string(ChoiceAuto)}, RealizationNames()...) }

// OnUnsupported is `--on-unsupported`: what a named realization does on
// brokers that lack what it needs.
type OnUnsupported string

const (
	OnUnsupportedFail     OnUnsupported = "fail"
	OnUnsupportedFallback OnUnsupported = "fallback"
)

// Realization names as reports spell them (ctp.Observation.Realization),
// the vocabulary ctp owns.
const (
	RealizationLedger = ctp.RealizationLedger
	RealizationNative = ctp.RealizationNative
)

// Decision is how a transactional cell runs.
type Decision struct {
	// Mode is transactional, or explicit after a fallback.
	Mode ctp.AckMode
	// Realization names the realization in transactional mode, "" in explicit.
	Realization string
	// Warning, when set, goes into the report verbatim.
	Warning string
}

// Resolve applies CONTRACT.md's rules:
//
//   - auto: the first realization (Realizations' order) the brokers
//     support: native when they advertise both RPCs, else the ledger;
//   - a named realization the brokers support: that one;
//   - a named realization whose RPCs they lack: fail (the default) with an
//     error naming each missing API and its key, or, with fallback,
//     explicit mode and a warning for the report.
//
// A realization the brokers support but this client cannot run
// (Support.Blocked) is skipped by auto with a warning, and is an error that
// says why when named: falling back silently would report a realization
// that did not run.
func Resolve(choice Choice, on OnUnsupported, s Support) (Decision, error) {
	if on == "" {
		on = OnUnsupportedFail
	}
	if on != OnUnsupportedFail && on != OnUnsupportedFallback {
		return Decision{}, fmt.Errorf("resolve txn acks: --on-unsupported %q: want fail or fallback", on)
	}
	if choice == ChoiceAuto || choice == "" {
		var warnings []string
		for _, r := range Realizations {
			why := r.Unavailable(s)
			if why == nil {
				d := Decision{Mode: ctp.Transactional, Realization: r.Name}
				if len(warnings) > 0 {
					d.Warning = strings.Join(warnings, "; ") + "; ran the " + r.Name + " realization"
				}
				return d, nil
			}
			var unsupported *UnsupportedError
			if !errors.As(why, &unsupported) {
				// The brokers speak it; this client cannot run it: say so.
				warnings = append(warnings, fmt.Sprintf("brokers advertise KIP-1289 but the %s workload cannot run (%v)", r.Name, why))
			}
		}
		return Decision{}, errors.New("resolve txn acks: --txn-acks auto: no realization can run")
	}
	r, ok := LookupRealization(string(choice))
	if !ok {
		return Decision{}, fmt.Errorf("resolve txn acks: --txn-acks %q: want one of %s", choice, strings.Join(Choices(), ", "))
	}
	why := r.Unavailable(s)
	var unsupported *UnsupportedError
	switch {
	case why == nil:
		return Decision{Mode: ctp.Transactional, Realization: r.Name}, nil
	case errors.As(why, &unsupported) && on == OnUnsupportedFallback:
		return Decision{Mode: ctp.Explicit,
			Warning: fmt.Sprintf("--txn-acks %s: %v; ran explicit mode instead (--on-unsupported fallback)", r.Name, why)}, nil
	}
	return Decision{}, fmt.Errorf("resolve txn acks: --txn-acks %s: %w", r.Name, why)
}
