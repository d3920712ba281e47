package cell

import (
	"github.com/sharechaos/sharechaos/result"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/history"
)

// phaseTimer records a cell's phases as consecutive intervals: begin ends the
// open phase and opens the next. A fault runs beside the load, so its phases
// are cut out of the load afterwards (split), from the times the fault itself
// reported, instead of the cell's code path knowing them in advance.
type phaseTimer struct {
	mu     sync.Mutex
	phases []timedPhase
}

type timedPhase struct {
	name       string
	start, end time.Time // end is zero while the phase is open
}

// begin ends the open phase and opens name.
func (t *phaseTimer) begin(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if n := len(t.phases); n > 0 && t.phases[n-1].end.IsZero() {
		t.phases[n-1].end = now
	}
	t.phases = append(t.phases, timedPhase{name: name, start: now})
}

// split cuts the phase that contains at in two: the part from at on is
// named name. Times outside every phase are ignored.
func (t *phaseTimer) split(at time.Time, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, p := range t.phases {
		if at.Before(p.start) || (!p.end.IsZero() && !at.Before(p.end)) {
			continue
		}
		head, tail := p, p
		head.end, tail.start, tail.name = at, at, name
		t.phases = append(t.phases[:i], append([]timedPhase{head, tail}, t.phases[i+1:]...)...)
		return
	}
}

// result ends the open phase and returns every phase in order.
func (t *phaseTimer) result() []result.Phase {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	out := make([]result.Phase, 0, len(t.phases))
	for _, p := range t.phases {
		end := p.end
		if end.IsZero() {
			end = now
		}
		out = append(out, result.Phase{Name: p.name, DurationS: end.Sub(p.start).Seconds()})
	}
	return out
}

// markFault cuts the fault and heal phases out of the load: fault from the
// first firing to the last, heal from the last firing to the last heal. For a
// worker fault (fired in the worker's history), the heal ends when the next
// worker started (its replacement) or the stopped one resumed.
func (t *phaseTimer) markFault(fired []time.Time, healed []time.Time) {
	if len(fired) == 0 {
		return
	}
	first, last := fired[0], fired[0]
	for _, f := range fired {
		if f.Before(first) {
			first = f
		}
		if f.After(last) {
			last = f
		}
	}
	t.split(first, result.PhaseFault)
	if last.After(first) {
		t.split(last, result.PhaseHeal)
	}
	var end time.Time
	for _, h := range healed {
		if h.After(end) {
			end = h
		}
	}
	after := last
	if !last.After(first) {
		after = last.Add(time.Nanosecond)
	}
	if !end.After(last) {
		// Nothing healed: what follows the fault is the drain.
		t.split(after, result.PhaseDrain)
		return
	}
	if !last.After(first) {
		t.split(after, result.PhaseHeal)
	}
	t.split(end, result.PhaseDrain)
}

// workerFaultTimes reads a worker fault's firing and healing from the
// histories: the first fault-fired event, and the first poll after it that
// brought a record back (delivery count 2 or more: what the dead or stopped
// worker held came back when its lock expired or its connection closed, the
// wait a crash costs), else the first worker start or resume after it.
func workerFaultTimes(h history.History) (fired, healed []time.Time) {
	var at int64
	for _, e := range h {
		if e.F == history.FFaultFired && e.Worker != history.Orchestrator && (at == 0 || e.TS < at) {
			at = e.TS
		}
	}
	if at == 0 {
		return nil, nil
	}
	next, back := int64(0), int64(0)
	for _, e := range h {
		if e.TS <= at {
			continue
		}
		if (e.F == history.FStart || e.F == history.FResumed) && (next == 0 || e.TS < next) {
			next = e.TS
		}
		if e.F == history.FPoll && e.Type == history.OK && (back == 0 || e.TS < back) {
			for _, r := range e.Records {
				if r.Delivery >= 2 {
					back = e.TS
					break
				}
			}
		}
	}
	if back != 0 {
		next = back
	}
	fired = []time.Time{time.Unix(0, at)}
	if next != 0 {
		healed = []time.Time{time.Unix(0, next)}
	}
	return fired, healed
}

// sumPhases adds the durations of the named phases.
func sumPhases(ps []result.Phase, names ...string) float64 {
	var s float64
	for _, p := range ps {
		for _, n := range names {
			if p.Name == n {
				s += p.DurationS
			}
		}
	}
	return s
}

// timePhases fills the cell's phases and unavoidable waits once it was
// judged: the fault's own report (cluster faults) or the histories (worker
// faults) cut the fault and heal out of the load.
func (r *run) timePhases(cell *result.Cell, h history.History, rep *faults.Report) {
	if rep != nil {
		var fired []time.Time
		for _, f := range rep.Fired {
			fired = append(fired, f.At)
		}
		r.phases.markFault(fired, rep.Healed)
	} else if r.plan.Scenario.Worker != nil {
		r.phases.markFault(workerFaultTimes(h))
	}
	cell.Phases = r.phases.result()
	waits := sumPhases(cell.Phases, result.PhaseFault, result.PhaseHeal)
	// What the scenario declares it waits for, where the measured fault and
	// heal do not hold it already: a stall, or the transaction timeout that
	// alone ends a fresh-id replacement's predecessor.
	if wf := r.plan.Scenario.Worker; wf != nil {
		declared := 0.0
		if wf.Stall != nil {
			declared += wf.Stall(r.s.Lock).Seconds()
		}
		if wf.FreshID {
			timeout := r.s.TxnTimeout
			if wf.TxnTimeout != nil {
				timeout = wf.TxnTimeout(r.s.Lock)
			}
			declared += timeout.Seconds()
		}
		waits = max(waits, declared)
	}
	cell.WaitsS = waits
}
