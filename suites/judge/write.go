package judge

import (
	"github.com/sharechaos/sharechaos/result"
	"path/filepath"
	"sort"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/reports"
)

// WriteResult writes result.json alone (after every cell, so an interrupted
// run still has a current one).
func WriteResult(dir string, res result.Result) error { return result.WriteResultJSON(dir, res) }

// WriteRun writes every report file of a run, with each cell's latency plots
// rebuilt from its histories.
func WriteRun(dir string, res result.Result) error {
	return reports.WriteRun(dir, res, RunFigures(dir, res))
}

// RunFigures builds each cell's plots from the histories in its directory (a
// percentile spectrum of every latency metric, the committed records and the
// commit latency over time with the fault window shaded) and each
// scenario's overlay of its modes' spectra.
func RunFigures(dir string, res result.Result) result.Figures {
	figs := result.Figures{}
	hists := map[string]map[string]*bench.Histogram{}
	for _, c := range res.Runs {
		if c.Dir == "" {
			continue
		}
		h, err := history.ReadDir(filepath.Join(dir, c.Dir, "histories"))
		if err != nil {
			continue
		}
		hs := Latency(h)
		if len(hs) == 0 {
			continue
		}
		hists[c.ID()] = hs
		names := make([]string, 0, len(hs))
		for n := range hs {
			names = append(names, n)
		}
		sort.Strings(names)
		f := result.Figure{Title: c.Name() + ": latency percentile spectrum", YLabel: "milliseconds"}
		for _, n := range names {
			sp := hs[n].Spectrum(n)
			sp.Key = n
			f.Spectra = append(f.Spectra, sp)
		}
		figs[c.ID()] = append(cellTimelines(c, h), f)
	}
	for s, fs := range scenarioOverlays(res.Runs, hists) {
		figs[result.ScenarioKey(s)] = fs
	}
	return figs
}
