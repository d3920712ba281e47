package suites

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sharechaos/sharechaos/reports"
)

// showProgress prints where the current cell is: one rewritten line on a
// terminal, a log line every few seconds otherwise.
func (pr *progress) show(p cellPlan, done, total int64) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	name := p.name() + "/" + string(p.mode)
	if p.realization != "" {
		name += "/" + p.realization
	}
	if pr.live {
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(done) / float64(total)
		}
		fmt.Fprintf(pr.w, "\r\033[K%-48s %6d/%-6d %5.1f%%", name, done, total, pct)
		return
	}
	if time.Since(pr.last[name]) >= 5*time.Second {
		pr.last[name] = time.Now()
		fmt.Fprintf(pr.w, "%s  %s: %d of %d input records done\n", time.Now().Format("15:04:05"), name, done, total)
	}
}

// endProgress prints a cell's verdict on its own line.
func (pr *progress) end(c reports.Cell) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.live {
		fmt.Fprint(pr.w, "\r\033[K")
	}
	line := fmt.Sprintf("%-13s %s  (%.0fs)", c.Verdict, c.Name(), c.DurationS)
	if c.Input > 0 {
		line += fmt.Sprintf("  input=%d processed=%d duplicated=%d lost=%d unseen=%d", c.Input, c.Processed, c.Duplicated, c.Lost, c.Unseen)
	}
	if c.Reason != "" {
		line += "\n              " + c.Reason
	}
	fmt.Fprintln(pr.w, line)
}

// progress is shared by cells running at once.
type progress struct {
	w io.Writer
	// live: one rewritten line on a terminal (only with one cell at a time).
	live bool
	mu   sync.Mutex
	last map[string]time.Time // per cell: when its last log line was printed
}

func newProgress(o Options) *progress {
	return &progress{w: o.Progress, live: o.ProgressLive && o.Parallel <= 1, last: map[string]time.Time{}}
}
