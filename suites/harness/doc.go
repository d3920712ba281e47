// Package harness is what the chaos runner (suites) and the bench
// (suites/benchrun) share: the common options and their flags, registered
// once; the backend registry; the KIP-1289 negotiation; the run directory,
// seed and run id; usage errors. User settings live in Common; runtime state
// never does.
package harness
