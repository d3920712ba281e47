package reports

import (
	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// fewSamples is the count below which a p99 is mostly the maximum: the
// report warns wherever a percentile rests on fewer values.
const fewSamples = 100

// commitMetric is the metric of the cells table's commit column.
const commitMetric = bench.TxnCommitDuration

type link struct{ Href, Text string }

// cellLinks are the cell's files, relative to the run directory: its
// histories, its .hgrm files and the broker logs (copied for cells that did
// not pass). Only files that exist are linked.
func cellLinks(runDir string, c result.Cell) []link {
	if c.Dir == "" {
		return nil
	}
	var out []link
	add := func(rel, text string) {
		if _, err := os.Stat(filepath.Join(runDir, rel)); err == nil {
			out = append(out, link{Href: filepath.ToSlash(rel), Text: text})
		}
	}
	add(path.Join(c.Dir, "histories")+"/", "histories/")
	hgrms, _ := filepath.Glob(filepath.Join(runDir, c.Dir, "*.hgrm"))
	sort.Strings(hgrms)
	for _, h := range hgrms {
		add(path.Join(c.Dir, filepath.Base(h)), filepath.Base(h))
	}
	add(path.Join(c.Dir, "broker-logs")+"/", "broker-logs/")
	return out
}
