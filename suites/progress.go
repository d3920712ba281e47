package suites

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"io"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/suites/cell"
)

// progress is shared by the cells running at once: on a terminal, live bars
// (one per running cell, and the run's k of N with an ETA); otherwise plain
// log lines, a cell's records every few seconds and each phase change.
type progress struct {
	w     io.Writer
	live  *liveProgress // nil: plain lines
	mu    sync.Mutex
	last  map[int]time.Time // per cell index: when its last log line was printed
	phase map[int]cell.Phase
}

func newProgress(o Options, cells int) *progress {
	pr := &progress{w: o.Progress, last: map[int]time.Time{}, phase: map[int]cell.Phase{}}
	if o.ProgressLive {
		pr.live = newLiveProgress(o.Progress, cells, o.ProgressColor)
	}
	return pr
}

// Phase moves a cell to ph (cell.Display).
func (pr *progress) Phase(p cell.Plan, ph cell.Phase) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.phase[p.Index] == ph {
		return
	}
	pr.phase[p.Index] = ph
	if pr.live != nil {
		pr.live.phase(p, ph)
		return
	}
	fmt.Fprintf(pr.w, "%s  %s: %s\n", time.Now().Format("15:04:05"), p.Label(), ph)
}

// Progress shows a cell's records done (cell.Display): on the live display,
// else as a line of text() and the phase, at most every 5 s per cell.
func (pr *progress) Progress(p cell.Plan, done, total int64, text func() string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.live != nil {
		pr.live.records(p, done, total)
		return
	}
	if time.Since(pr.last[p.Index]) >= 5*time.Second {
		pr.last[p.Index] = time.Now()
		fmt.Fprintf(pr.w, "%s  %s: %s (%s)\n", time.Now().Format("15:04:05"), p.Label(), text(), pr.phase[p.Index])
	}
}

// end prints a cell's verdict on its own line (above the bars on a terminal).
func (pr *progress) end(p cell.Plan, c result.Cell) {
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

// Note prints a line about a cell (cell.Display), above the bars on a
// terminal.
func (pr *progress) Note(_ cell.Plan, line string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.live != nil {
		fmt.Fprintln(pr.live.p, line)
		return
	}
	fmt.Fprintf(pr.w, "%s  %s\n", time.Now().Format("15:04:05"), line)
}
