// Package check judges one cell of the CTP workload from its observation
// (ctp.Observation): what went in, what came out read_committed, where the
// share group ended, and the workers' histories.
//
// It is shaped the way Jepsen composes checkers (checker.clj compose,
// check-safe, merge-valid): one shared index of the observation is built once
// (state), then named sub-checkers each judge one property from it, each run
// safely (a sub-checker that panics makes its own part UNKNOWN, naming it,
// and leaves the others standing), and their parts are merged worst-wins into
// one Result. Adding a property is adding a sub-checker; none of them reads
// anything but the state.
package check
