package reports

import (
	"bufio"
	"fmt"

	"github.com/sharechaos/sharechaos/result"
)

// writeSoakTimelines writes each soak cell's timeline (--duration): per
// stretch of the duration, what was seeded and committed, the commit
// latency, and whether a fault acted. report.html draws the same over time.
func writeSoakTimelines(w *bufio.Writer, cells []result.Cell) {
	has := false
	for _, c := range cells {
		has = has || len(c.SoakTimeline) > 0
	}
	if !has {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("## Soak timelines\n\n")
	p("Seconds from the cell's first event; commit latency of the transactions that committed in each stretch; fault: a cluster fault was acting (fired, not yet healed) or a worker fault fired.\n\n")
	for _, c := range cells {
		if len(c.SoakTimeline) == 0 {
			continue
		}
		p("### %s (repeat %d)\n\n", md(c.Name()), c.Repeat)
		p("| from s | to s | seeded | committed records | commits | commit p50 / p99 / max ms | fault |\n|---:|---:|---:|---:|---:|---|---|\n")
		for _, b := range c.SoakTimeline {
			fault := ""
			if b.Fault {
				fault = c.Fault.Name
			}
			lat := "-"
			if b.Commits > 0 {
				lat = fmt.Sprintf("%.1f / %.1f / %.1f", b.CommitP50Ms, b.CommitP99Ms, b.CommitMaxMs)
			}
			p("| %.0f | %.0f | %d | %d | %d | %s | %s |\n", b.FromS, b.ToS, b.Seeded, b.Committed, b.Commits, lat, md(fault))
		}
		p("\n")
	}
}
