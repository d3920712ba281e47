// Package judge is the offline half of a run: what turns an observed cell
// into its verdict (Cell: the checker, then the run's own quality: a fault
// that never fired, missing evidence, a fault on an idle loop), a run into
// its verdict (Run), thresholds, latency figures and plots from the
// histories, and the run directory's files (plan.json, observation.json,
// result.json and the reports). The live runner (suites) calls it after
// every cell; `sharechaos check` and `report` call it on a stored run
// (Recheck, WriteRun), so a live judgement and a re-check are one code path
// (Jepsen's run/analyze split). It never starts a cluster or a worker.
package judge
