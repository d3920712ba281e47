package suites

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"io"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// Phase is where a cell is, for the progress display.
type Phase string

// A cell's phases, in order: fault and heal only when its scenario has a
// cluster fault (a worker's fault fires inside the worker, during load).
const (
	PhaseSetup   Phase = "setup"
	PhaseSeeding Phase = "seeding"
	PhaseLoad    Phase = "load"
	PhaseFault   Phase = "fault"
	PhaseHeal    Phase = "heal"
	PhaseDrain   Phase = "drain"
	PhaseCheck   Phase = "check"
)

// progress is shared by the cells running at once: on a terminal, live bars
// (one per running cell, and the run's k of N with an ETA); otherwise plain
// log lines, a cell's records every few seconds and each phase change.
type progress struct {
	w     io.Writer
	live  *liveProgress // nil: plain lines
	mu    sync.Mutex
	last  map[int]time.Time // per cell index: when its last log line was printed
	phase map[int]Phase
}

func newProgress(o Options, cells int) *progress {
	pr := &progress{w: o.Progress, last: map[int]time.Time{}, phase: map[int]Phase{}}
	if o.ProgressLive {
		pr.live = newLiveProgress(o.Progress, cells, o.ProgressColor)
	}
	return pr
}

// label names a cell as the progress lines do.
func (p cellPlan) label() string {
	name := p.name() + "/" + string(p.mode)
	if p.realization != "" {
		name += "/" + p.realization
	}
	if p.repeat > 1 {
		name += fmt.Sprintf("#%d", p.repeat)
	}
	return name
}

// setPhase moves a cell to ph.
func (pr *progress) setPhase(p cellPlan, ph Phase) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.phase[p.index] == ph {
		return
	}
	pr.phase[p.index] = ph
	if pr.live != nil {
		pr.live.phase(p, ph)
		return
	}
	fmt.Fprintf(pr.w, "%s  %s: %s\n", time.Now().Format("15:04:05"), p.label(), ph)
}

// show reports a cell's records done; all of them done means it drains.
func (pr *progress) show(p cellPlan, done, total int64) {
	if total > 0 && done >= total {
		pr.setPhase(p, PhaseDrain)
	}
	pr.records(p, done, total, func() string { return fmt.Sprintf("%d of %d input records done", done, total) })
}

// records shows a cell's records done: on the live display, else as a line
// of text() and the phase, at most every 5 s per cell.
func (pr *progress) records(p cellPlan, done, total int64, text func() string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.live != nil {
		pr.live.records(p, done, total)
		return
	}
	if time.Since(pr.last[p.index]) >= 5*time.Second {
		pr.last[p.index] = time.Now()
		fmt.Fprintf(pr.w, "%s  %s: %s (%s)\n", time.Now().Format("15:04:05"), p.label(), text(), pr.phase[p.index])
	}
}

// end prints a cell's verdict on its own line (above the bars on a terminal).
func (pr *progress) end(p cellPlan, c result.Cell) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	line := fmt.Sprintf("%-13s %s  (%.0fs)", c.Verdict, c.Name(), c.DurationS)
	if c.Input > 0 {
		line += fmt.Sprintf("  input=%d processed=%d duplicated=%d lost=%d unseen=%d", c.Input, c.Processed, c.Duplicated, c.Lost, c.Unseen)
	}
	if c.Reason != "" {
		line += "\n              " + c.Reason
	}
	if pr.live != nil {
		pr.live.end(p, string(c.Verdict), line)
		return
	}
	fmt.Fprintln(pr.w, line)
}

// close stops the live display (a no-op for plain lines).
func (pr *progress) close() {
	if pr.live != nil {
		pr.live.close()
	}
}

// faultEvent moves a cell to fault when its cluster fault fires and to heal
// when it heals.
func (pr *progress) faultEvent(p cellPlan, e history.Event) {
	switch e.F {
	case history.FFaultFired:
		pr.setPhase(p, PhaseFault)
	case history.FHeal:
		pr.setPhase(p, PhaseHeal)
	}
}
