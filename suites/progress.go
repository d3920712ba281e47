package suites

import (
	"fmt"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/reports"
)

// showProgress prints where the current cell is: one rewritten line on a
// terminal, a log line every few seconds otherwise.
func (o *Options) showProgress(p cellPlan, done, total int64) {
	o.progress.mu.Lock()
	defer o.progress.mu.Unlock()
	name := p.scenario() + "/" + string(p.mode)
	if p.realization != "" {
		name += "/" + p.realization
	}
	if o.ProgressLive && o.Parallel <= 1 {
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(done) / float64(total)
		}
		fmt.Fprintf(o.Progress, "\r\033[K%-48s %6d/%-6d %5.1f%%", name, done, total, pct)
		return
	}
	if time.Since(o.progress.last[name]) >= 5*time.Second {
		o.progress.last[name] = time.Now()
		fmt.Fprintf(o.Progress, "%s  %s: %d of %d input records done\n", time.Now().Format("15:04:05"), name, done, total)
	}
}

// endProgress prints a cell's verdict on its own line.
func (o *Options) endProgress(c reports.Cell) {
	o.progress.mu.Lock()
	defer o.progress.mu.Unlock()
	if o.ProgressLive && o.Parallel <= 1 {
		fmt.Fprint(o.Progress, "\r\033[K")
	}
	line := fmt.Sprintf("%-13s %s  (%.0fs)", c.Verdict, c.Name(), c.DurationS)
	if c.Input > 0 {
		line += fmt.Sprintf("  input=%d processed=%d duplicated=%d lost=%d unseen=%d", c.Input, c.Processed, c.Duplicated, c.Lost, c.Unseen)
	}
	if c.Reason != "" {
		line += "\n              " + c.Reason
	}
	fmt.Fprintln(o.Progress, line)
}

// progressState is shared by cells running at once.
type progressState struct {
	mu   sync.Mutex
	last map[string]time.Time // per cell: when its last log line was printed
}
