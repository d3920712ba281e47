// Package faults defines every fault the suite can inject, as rows of data: a
// client fault arms one worker at a point of the CTP loop (the worker fires it
// itself, exactly and race-free); a cluster fault acts on brokers or links
// through the backend's capabilities. Each fault is one-shot, heals, and proves
// that it fired with a fault-fired event on the run's timeline.
package faults

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Target is what a fault acts on.
type Target string

const (
	// TargetNone: no fault (the steady baseline).
	TargetNone Target = "none"
	// TargetWorker: one worker, armed at a point of its loop.
	TargetWorker Target = "worker"
	// TargetCluster: brokers or links, through the backend's capabilities.
	TargetCluster Target = "cluster"
)

// Fault is one row of the fault table.
type Fault struct {
	// Name is stable kebab-case: it appears in reports, test names and flags.
	Name string
	// Case cites ORACLE.md (a KIP case number or "beyond").
	Case   string
	Target Target
	// Point and Action arm a worker (TargetWorker).
	Point  ctp.Point
	Action ctp.Action
	// Stall is how long ActionStall holds a transaction; 0 means "the
	// acquisition lock plus a margin", decided by the runner.
	Stall time.Duration
	// DeliveryTimeout, when set, bounds every worker's produce in the cell, so
	// a produce fault surfaces as an error in time (case 7).
	DeliveryTimeout time.Duration
	// FreshID: the crashed worker's replacement gets a new transactional id,
	// so only the transaction timeout ends the old transaction.
	FreshID bool
	// Inject acts on the cluster (TargetCluster): apply, wait, heal. It must
	// record a fault-fired event through env.Fired when it acts.
	Inject func(ctx context.Context, env Env) error
	// Needs says whether a backend can run the fault; "" means yes, otherwise
	// the N/A reason.
	Needs func(c cluster.Cluster) string
	// NotApplicable gives, per mode, why the case does not exist there
	// (reported N/A, never PASS).
	NotApplicable map[ctp.AckMode]string
}

// Env is what a cluster fault acts on.
type Env struct {
	Cluster  cluster.Cluster
	Topology ctp.Topology
	Rand     *rand.Rand
	// Fired appends a fault-fired (or heal) event to the run's timeline.
	Fired func(history.Event)
	// Progress returns how many input records are done so far, so a fault
	// can wait for load to be under way.
	Progress func(ctx context.Context) (done, total int64)
	// Workers is the number of worker slots (1..Workers), whose
	// transactional ids are Topology.TransactionalID(slot); 0 is taken as 1.
	// Case 4 and late-endtxn pick one worker's transactional id by it.
	Workers int
}

// slots is how many worker slots the cell runs.
func (e Env) slots() int { return max(e.Workers, 1) }

// NAReason says why the fault cannot run in mode on c, or "" when it can.
func (f Fault) NAReason(mode ctp.AckMode, c cluster.Cluster) string {
	if why, ok := f.NotApplicable[mode]; ok {
		return why
	}
	if f.Needs != nil {
		return f.Needs(c)
	}
	return ""
}
