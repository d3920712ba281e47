package suites

import (
	"fmt"
	"github.com/sharechaos/sharechaos/suites/cell"
	"io"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// liveProgress is the terminal display: a bar per running cell (records
// done, phase) and the run's bar (k of N cells, elapsed, ETA). Verdict lines
// print above the bars. Its caller (progress) serializes every call.
type liveProgress struct {
	p       *mpb.Progress
	overall *mpb.Bar
	color   bool
	cells   map[int]*liveCell
}

type liveCell struct {
	bar   *mpb.Bar
	mu    sync.Mutex
	phase cell.Phase
}

func newLiveProgress(w io.Writer, cells int, color bool) *liveProgress {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(250*time.Millisecond), mpb.ForceTTY())
	lp := &liveProgress{p: p, color: color, cells: map[int]*liveCell{}}
	lp.overall = p.AddBar(int64(cells), mpb.BarPriority(1<<30),
		mpb.PrependDecorators(decor.Name("cells ", decor.WCSyncSpaceR), decor.CountersNoUnit("%d of %d", decor.WCSyncSpace)),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO), decor.Name("  ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
	return lp
}

// paint wraps s in an ANSI colour unless colour is off (NO_COLOR).
func (lp *liveProgress) paint(code, s string) string {
	if !lp.color {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}

var phaseColour = map[cell.Phase]string{
	cell.PhaseSetup: "2", cell.PhaseSeeding: "2", cell.PhaseLoad: "36", cell.PhaseFault: "31;1", cell.PhaseHeal: "33", cell.PhaseDrain: "34", cell.PhaseCheck: "35",
}

func (lp *liveProgress) cell(p cell.Plan) *liveCell {
	if c, ok := lp.cells[p.Index]; ok {
		return c
	}
	c := &liveCell{phase: cell.PhaseSetup}
	c.bar = lp.p.AddBar(0, mpb.BarRemoveOnComplete(), mpb.BarPriority(p.Index),
		mpb.PrependDecorators(decor.Name(p.Label(), decor.WCSyncSpaceR),
			decor.Any(func(decor.Statistics) string {
				c.mu.Lock()
				defer c.mu.Unlock()
				return lp.paint(phaseColour[c.phase], fmt.Sprintf("%-7s", c.phase))
			}, decor.WCSyncSpace)),
		mpb.AppendDecorators(decor.CountersNoUnit("%d/%d records", decor.WCSyncSpace)))
	lp.cells[p.Index] = c
	return c
}

func (lp *liveProgress) phase(p cell.Plan, ph cell.Phase) {
	c := lp.cell(p)
	c.mu.Lock()
	c.phase = ph
	c.mu.Unlock()
}

func (lp *liveProgress) records(p cell.Plan, done, total int64) {
	c := lp.cell(p)
	c.bar.SetTotal(total, false)
	c.bar.SetCurrent(min(done, total))
}

func (lp *liveProgress) end(p cell.Plan, v, line string) {
	colour := "32"
	switch verdict.Verdict(v) {
	case verdict.Pass:
	case verdict.NA:
		colour = "2"
	case verdict.Unknown, verdict.ThresholdFailed:
		colour = "33"
	default:
		colour = "31;1"
	}
	fmt.Fprintln(lp.p, lp.paint(colour, line))
	if c, ok := lp.cells[p.Index]; ok {
		c.bar.Abort(true)
		delete(lp.cells, p.Index)
	}
	lp.overall.Increment()
}

func (lp *liveProgress) close() {
	for i, c := range lp.cells {
		c.bar.Abort(true)
		delete(lp.cells, i)
	}
	lp.overall.Abort(false)
	lp.p.Wait()
}
