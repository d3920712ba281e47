// Package cell runs one cell of a run: a pipeline of phases (setup, seed,
// start the workers, load with its fault, heal, drain, tear down, observe)
// over a small environment, with a seeding strategy (up front, held until
// the fault, or a soak's seeder) and an injection strategy (none, the
// worker fault's orchestrator half, the cell's own cluster fault, or a
// row's shared one) each chosen once from the row and the settings. The
// judgement is the offline half's (suites/judge), the worker processes
// suites/workerset's; the run's order is suites'.
package cell

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/judge"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// run is one running cell.
type run struct {
	env      Env
	s        Settings
	plan     Plan
	dir      string
	topo     ctp.Topology
	rng      *rand.Rand
	timeline *history.Recorder
	phases   phaseTimer
	seeding  seeding
	inject   injection
	// progress is the share group's progress as last read, and when the
	// cluster fault last acted (progress.go).
	progress progressState
	// stall decides when the drain nudges (drain_stall.go).
	stall *stallWatch
	// poisonRule is the cell's poison inputs (dlq.go), drawn once.
	poisonRule *ctp.Poison
}

// Run runs one cell to its verdict. It never returns an error: whatever
// goes wrong becomes the cell's verdict (HARNESS-ERROR, UNKNOWN) with a
// reason.
func Run(ctx context.Context, env Env, s Settings, plan Plan) (cell result.Cell) {
	started := time.Now()
	s, loadNote := s.WithLoad(plan.Scenario)
	r := &run{env: env, s: s, plan: plan, rng: rand.New(rand.NewPCG(uint64(plan.Seed), uint64(plan.Draw)))}
	defer plan.Share.exit(ctx, r)
	cell = r.stub(loadNote)
	defer func() { cell.DurationS = time.Since(started).Seconds() }()
	// The row's own reason first: it holds for every client (dlq-poison's
	// implicit cells), so a client's lack in that mode would hide it.
	if why := plan.Scenario.NAReason(plan.Mode, plan.Realization, env.Cluster, s.Shape(env.Cluster)); why != "" {
		cell.Verdict, cell.Reason = verdict.NA, why
		return cell
	}
	if why := clientLacks(plan); why != "" {
		cell.Verdict, cell.Reason = verdict.NA, why
		return cell
	}
	if err := r.open(); err != nil {
		cell.Verdict, cell.Reason = verdict.HarnessError, err.Error()
		return cell
	}
	defer r.timeline.Close()
	r.seeding = chooseSeeding(ctx, r)
	r.inject = chooseInjection(r)

	obs, notes, err := r.execute(ctx)
	healErr := r.cleanUp(ctx)
	env.Display.Phase(plan, PhaseCheck)
	cell.Notes = append(cell.Notes, notes...)
	cell.Notes = append(cell.Notes, r.seeding.notes(r)...)
	var na *notApplicable
	switch {
	case errors.As(err, &na):
		cell.Verdict, cell.Reason = verdict.NA, na.why
		return cell
	case err != nil && ctx.Err() != nil:
		cell.Verdict, cell.Reason = verdict.Unknown, "interrupted before the cell finished; what was recorded is in "+cell.Dir
	case err != nil:
		cell.Verdict, cell.Reason = verdict.HarnessError, err.Error()
	}
	r.judge(&cell, obs)
	failOnHeal(&cell, healErr)
	return cell
}

// stub is the cell's result before it ran: its name, notes on how it was
// planned, its directory and what its mode allows.
func (r *run) stub(loadNote string) result.Cell {
	p := r.plan
	cell := p.Stub(r.env.Cluster.Name())
	if p.Scenario.HasFault() {
		cell.Fault.Name = p.Name()
	}
	client, _ := workerset.LookupClient(p.Client)
	for _, n := range []string{p.FallbackNote, loadNote, "consumer: " + p.Consumer, client.About} {
		if n != "" {
			cell.Notes = append(cell.Notes, n)
		}
	}
	r.dir = filepath.Join(r.env.RunDir, "cells", strings.ReplaceAll(cell.Name(), "/", "_")+fmt.Sprintf("_r%d", p.Repeat))
	cell.Dir, _ = filepath.Rel(r.env.RunDir, r.dir)
	cell.Allowed = p.Scenario.Allowed(p.Mode).Names()
	return cell
}

// open makes the cell's directory and its orchestrator timeline.
func (r *run) open() error {
	if err := os.MkdirAll(filepath.Join(r.dir, "histories"), 0o755); err != nil {
		return err
	}
	r.env.Display.Phase(r.plan, PhaseSetup)
	var err error
	r.timeline, err = history.Create(filepath.Join(r.dir, "histories", history.Orchestrator+".jsonl"), history.Orchestrator)
	return err
}

// judge stores what the cell observed and judges it (suites/judge), then
// times its phases and sums up its latency.
func (r *run) judge(cell *result.Cell, obs *ctp.Observation) {
	if obs == nil {
		judge.SummarizeLatency(cell, r.dir, nil)
		return
	}
	if err := judge.SaveObservation(r.dir, obs); err != nil {
		cell.Notes = append(cell.Notes, err.Error())
	}
	r.phases.begin(result.PhaseCheck)
	conds := r.s.Conditions
	conds.Shape = r.s.Shape(r.env.Cluster)
	judge.Cell(cell, *obs, r.plan.Scenario, conds)
	rep := r.inject.report()
	r.timePhases(cell, obs.History, rep)
	if rep != nil {
		for _, h := range rep.Healed {
			cell.Fault.Healed = append(cell.Fault.Healed, h.UTC())
		}
	}
	judge.SummarizeLatency(cell, r.dir, obs.History)
	if r.s.Soak.Duration > 0 {
		cell.SoakTimeline = judge.SoakTimeline(*cell, obs.History)
	}
}

// faultEvent puts a cluster fault's event on the cell's timeline and moves
// its display to fault or heal.
func (r *run) faultEvent(e history.Event) {
	r.progress.faultActed()
	_ = r.timeline.Record(e)
	switch e.F {
	case history.FFaultFired:
		r.env.Display.Phase(r.plan, PhaseFault)
	case history.FHeal:
		r.env.Display.Phase(r.plan, PhaseHeal)
	}
}

// clientLacks is the N/A reason of a row that needs a loop option the
// workers' client does not have, or of a transactional cell whose
// realization it does not run (the Java worker beside the Go worker on a
// broker that speaks KIP-1289: its native cells); "" when it has them all.
func clientLacks(p Plan) string {
	c, _ := workerset.LookupClient(p.Client)
	if p.Mode == ctp.Transactional && p.Realization != "" && !c.Runs(p.Realization) {
		return fmt.Sprintf("the %s worker runs the transactional mode through %s only, and this cell's realization is %s",
			c.Name, strings.Join(c.Realizations, ", "), p.Realization)
	}
	need := map[string]bool{workerset.OptionRenew: p.Scenario.Worker != nil && p.Scenario.Worker.Renew,
		workerset.OptionPoison: p.Scenario.PoisonEvery > 0}
	for _, l := range c.Lacks {
		if !need[l.Option] || !l.In(p.Mode) {
			continue
		}
		where := ""
		if l.Modes != nil {
			where = fmt.Sprintf(" in the %s mode", p.Mode)
		}
		return fmt.Sprintf("the row needs the loop's %s option, which the %s worker does not have%s: %s", l.Option, c.Name, where, l.Why)
	}
	return ""
}
