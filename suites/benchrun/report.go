package benchrun

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/bench"
)

// benchMetricNotes say how each metric is measured (bench.Metrics), then
// what only the bench's way of measuring adds; they go into the report.
var benchMetricNotes = append(bench.MetricNotes(bench.InBench),
	"txn_total_duration in the bench: its end is taken when the worker's step returned, minus the ack's own round trip: the three history events written after the commit returned (commit ok, ack invoke, ack ok) are inside it, tens of microseconds (the harness-overhead note breaks them out).",
	"e2e_latency includes the commit markers reaching the partition and the tail reader's fetch (at most "+tailMaxWait.String()+" of fetch wait when idle).",
	"records/s and txn/s: records and transactions committed during the measured duration, per second of it.",
	"Comparisons: per sweep point, batch size, metric and percentile, each mode against explicit by a Mann-Whitney U test whose unit is one repeat's percentile (n = repeats per mode).",
)

// summarizeBench turns the runs into comparisons, curves, thresholds,
// harness overhead, .hgrm files and figures: each a step below.
func summarizeBench(o *Options, b *result.Bench, results []benchResult, ts bench.Thresholds) result.BenchFigures {
	b.Notes = append(b.Notes, benchMetricNotes...)
	var measured []benchResult
	for _, r := range results {
		if !r.plan.bare {
			measured = append(measured, r)
		}
	}
	points := benchPoints(measured)
	if o.Fault != "" {
		b.Notes = append(b.Notes, faultNotes(o.Fault, measured)...)
	}
	b.Comparisons = append(b.Comparisons, compareAtPoints(o, b.Baseline, measured, points)...)
	groups := groupResults(measured)
	writeGroupHGRMs(o, b, groups, len(points) > 1)
	b.Thresholds = append(b.Thresholds, judgeThresholds(groups, ts, len(points) > 1)...)
	b.HarnessOverhead = harnessOverhead(b, results, o)
	if len(o.Rates) > 1 || len(b.Floors) > 0 {
		b.Curves, b.KeptTolerance = benchCurves(measured, o.Rates, b.Floors, len(o.Latencies)*len(o.Partitions) > 1), keptTolerance
	}
	figs := curveFigures(b.Curves, b.Floors)
	for batch, fs := range pointFigures(measured, points) {
		figs[batch] = append(figs[batch], fs...)
	}
	return figs
}

// faultNotes say when --fault fired in each run, or that it never did.
func faultNotes(fault string, measured []benchResult) []string {
	var notes []string
	for _, r := range measured {
		name := fmt.Sprintf("%s batch %d repeat %d", r.plan.label(), r.plan.batch, r.plan.repeat)
		if len(r.windows) == 0 {
			notes = append(notes, fmt.Sprintf("fault %s never fired in %s: its figures have no during/after split", fault, name))
		}
		for _, w := range r.windows {
			notes = append(notes, fmt.Sprintf("fault %s in %s: from %.1fs to %.1fs of the measurement", w.Name, name,
				w.Start.Sub(r.run.Started).Seconds(), w.End.Sub(r.run.Started).Seconds()))
		}
	}
	return notes
}

// compareAtPoints compares every mode with the baseline at each sweep
// point, per batch size, metric and percentile.
func compareAtPoints(o *Options, baseline string, measured []benchResult, points []benchPoint) []result.BenchComparison {
	var out []result.BenchComparison
	for _, pt := range points {
		rows := bench.CompareModes(runsAt(measured, pt), bench.CompareOptions{Baseline: baseline, Metrics: benchMetrics,
			Percentiles: []string{"p50", "p99"}, Alpha: o.Alpha})
		for _, row := range rows {
			if notRecordedBySide(row) {
				continue // e.g. share_ack_duration of implicit mode: it has none
			}
			if len(points) > 1 {
				row.Partitions, row.LinkLatency, row.Rate = pt.partitions, pt.latency.String(), rateName(pt.rate)
			}
			out = append(out, row)
		}
	}
	return out
}

// writeGroupHGRMs writes each group's merged histograms to hgrm/.
func writeGroupHGRMs(o *Options, b *result.Bench, groups []*resultGroup, swept bool) {
	hgrmDir := filepath.Join(o.Out, "hgrm")
	if err := os.MkdirAll(hgrmDir, 0o755); err != nil {
		b.Notes = append(b.Notes, "write .hgrm files: "+err.Error())
	}
	for _, g := range groups {
		prefix := strings.ReplaceAll(g.label, "/", "-") + "-batch" + strconv.Itoa(g.batch) + "-"
		if swept {
			prefix += g.point.name() + "-"
		}
		if _, err := g.snap.WriteHGRMs(hgrmDir, prefix); err != nil {
			b.Notes = append(b.Notes, "write .hgrm files: "+err.Error())
		}
	}
}

// judgeThresholds judges every threshold on each group it matches.
func judgeThresholds(groups []*resultGroup, ts bench.Thresholds, swept bool) []result.ThresholdResult {
	recordedAnywhere := map[string]bool{}
	for _, g := range groups {
		for _, m := range g.snap.Latencies() {
			recordedAnywhere[m] = true
		}
		for _, m := range g.snap.Counters() {
			recordedAnywhere[m] = true
		}
	}
	var out []result.ThresholdResult
	for _, g := range groups {
		tags := map[string]string{"mode": g.mode, "batch": strconv.Itoa(g.batch),
			"partitions": strconv.Itoa(g.point.partitions), "latency": g.point.latency.String(), "rate": rateName(g.point.rate)}
		if g.realization != "" {
			tags["realization"] = g.realization
		}
		scope := fmt.Sprintf("%s batch=%d", g.label, g.batch)
		if swept {
			scope += " (" + g.point.name() + ")"
		}
		for _, t := range ts {
			if !t.Matches(tags) {
				continue
			}
			// A metric this mode never records (implicit has no
			// share_ack_duration) does not apply here; one that nothing
			// recorded fails, so a typo never passes.
			if recordedAnywhere[t.Metric] && !g.snap.HasLatency(t.Metric) && !slices.Contains(g.snap.Counters(), t.Metric) {
				continue
			}
			res := t.Evaluate(g.snap)
			res.Scope = scope
			out = append(out, res)
		}
	}
	return out
}

// pointFigures are the spectra per batch size at each sweep point (the
// modes' txn_total_duration, and e2e_latency's).
func pointFigures(measured []benchResult, points []benchPoint) result.BenchFigures {
	figs := result.BenchFigures{}
	for _, pt := range points {
		var reps []bench.Repeat
		for _, r := range measured {
			if r.plan.point == pt && r.snap != nil {
				reps = append(reps, bench.Repeat{Run: r.run, Snapshot: r.snap, Windows: r.windows})
			}
		}
		main := bench.ModeFigures(reps, bench.TxnTotalDuration)
		ends := bench.ModeFigures(reps, bench.E2ELatency)
		for batch, fs := range main {
			if f := ends[batch]; len(f) > 0 && len(f[0].Spectra) > 0 {
				fs = append(fs, f[0]) // e2e_latency's spectrum by mode
			}
			if len(points) > 1 {
				for i := range fs {
					fs[i].Title = pointWords(pt) + ": " + fs[i].Title
				}
			}
			figs[batch] = append(figs[batch], fs...)
		}
	}
	return figs
}

// notRecordedBySide says a comparison row exists only because one side never
// records its metric (no repeat of it failed).
func notRecordedBySide(c result.BenchComparison) bool {
	if c.N1 > 0 && c.N2 > 0 {
		return false
	}
	for _, w := range c.Warnings {
		if !strings.Contains(w, "no "+c.Metric+" recorded") && w != "no samples on one side" {
			return false
		}
	}
	return true
}

func benchPoints(rs []benchResult) []benchPoint {
	var out []benchPoint
	for _, r := range rs {
		if !slices.Contains(out, r.plan.point) {
			out = append(out, r.plan.point)
		}
	}
	return out
}

func runsAt(rs []benchResult, pt benchPoint) []result.BenchRun {
	var out []result.BenchRun
	for _, r := range rs {
		if r.plan.point == pt {
			out = append(out, r.run)
		}
	}
	return out
}

func pointWords(pt benchPoint) string {
	return fmt.Sprintf("link latency %s, %d partitions, %s", pt.latency, pt.partitions, rateWords(pt.rate))
}

// rateWords says a rate for people: "20 txn/s", "closed loop".
func rateWords(rate float64) string {
	if rate <= 0 {
		return "closed loop"
	}
	return rateName(rate) + " txn/s"
}

// resultGroup is every repeat of one mode at one batch size and sweep point,
// merged: the unit of thresholds and .hgrm files.
type resultGroup struct {
	label, mode, realization string
	batch                    int
	point                    benchPoint
	snap                     *bench.Snapshot
}

func groupResults(rs []benchResult) []*resultGroup {
	var out []*resultGroup
	find := func(r benchResult) *resultGroup {
		for _, g := range out {
			if g.label == r.plan.label() && g.batch == r.plan.batch && g.point == r.plan.point {
				return g
			}
		}
		g := &resultGroup{label: r.plan.label(), mode: string(r.plan.mode), realization: r.plan.realization,
			batch: r.plan.batch, point: r.plan.point, snap: bench.NewSnapshot(0)}
		out = append(out, g)
		return g
	}
	for _, r := range rs {
		if r.snap == nil || (r.run.Error != "" && r.harness) {
			continue
		}
		g := find(r)
		if err := g.snap.Merge(r.snap); err != nil {
			continue // one slot interval for every run: cannot happen
		}
	}
	return out
}

// harnessOverhead compares, per batch size at the first sweep point, the
// txn_total_duration p50 of the instrumented explicit loop with the bare
// loop's, both sides of the same paired runs (runPaired: their ticks
// interleaved, so load drift hits both alike), one value per repeat on each side, tested
// like the modes; it notes each batch's median of the per-run ratios, the
// ratios themselves, the U test of the two sides and the same for
// txn_service_duration (begin to commit returned: the part of the overhead
// that is not in the poll or the pacing), and returns the median of the
// per-batch figures; 0 when not measured.
func harnessOverhead(b *result.Bench, results []benchResult, o *Options) float64 {
	// The bare loop runs at the first sweep point only (planPoint).
	alpha, closed := o.Alpha, false
	for _, r := range results {
		if r.plan.bare {
			closed = r.plan.point.rate <= 0
			break
		}
	}
	pairing := "the two loops at once, their ticks interleaved"
	if closed {
		pairing = "the two loops in turn, " + pairSlice.String() + " slices"
	}
	type sides struct {
		bare, ours, bareSvc, oursSvc, ratios []float64
		dirs                                 []string
		// saturated: runs where a side dropped ticks, so its p50 is the
		// backlog's queueing, not the transaction.
		saturated int
	}
	byBatch := map[int]*sides{}
	var batches []int
	p50 := func(s *bench.Snapshot, metric string) float64 {
		if s == nil {
			return 0
		}
		return float64(s.Histogram(metric).Quantile(50)) / float64(time.Millisecond)
	}
	for _, r := range results {
		if !r.plan.bare {
			continue
		}
		if r.plan.bareSync {
			if r.run.Error == "" && len(r.bare) > 0 {
				b.Notes = append(b.Notes, fmt.Sprintf("bare franz-go loop producing with ProduceSync (one call that flushes; same client options), batch %d: txn_total_duration p50 %.3f ms (one run, %d transactions); its gap to the bare loop with the worker's produce pattern is the workload's produce pattern, not the harness",
					r.plan.batch, p50(r.snap, bench.TxnTotalDuration), len(r.bare)))
			}
			continue
		}
		ours := p50(r.paired, bench.TxnTotalDuration)
		if r.run.Error != "" || len(r.bare) == 0 || ours <= 0 {
			b.Notes = append(b.Notes, fmt.Sprintf("paired overhead run batch %d repeat %d left out: %s", r.plan.batch, r.plan.repeat, orWords(r.run.Error, "a side committed nothing")))
			continue
		}
		if byBatch[r.plan.batch] == nil {
			byBatch[r.plan.batch] = &sides{}
			batches = append(batches, r.plan.batch)
		}
		s := byBatch[r.plan.batch]
		bare := p50(r.snap, bench.TxnTotalDuration)
		s.bare = append(s.bare, bare)
		s.ours = append(s.ours, ours)
		s.bareSvc = append(s.bareSvc, p50(r.snap, bench.TxnServiceDuration))
		s.oursSvc = append(s.oursSvc, p50(r.paired, bench.TxnServiceDuration))
		s.ratios = append(s.ratios, ours/bare)
		s.dirs = append(s.dirs, filepath.Join(o.Out, "runs", r.plan.dirName()))
		if r.run.Counters[bench.DroppedIterations] > 0 || bench.FillRun(result.BenchRun{}, r.paired, nil).Counters[bench.DroppedIterations] > 0 {
			s.saturated++
		}
	}
	slices.Sort(batches)
	var (
		ratios []float64
		wheres []string
	)
	for _, batch := range batches {
		s := byBatch[batch]
		// The figure is the median of the per-run ratios: each run's two
		// p50s were measured under the same load, so their ratio is paired;
		// the U test over the two sides' p50s is the conservative check.
		ratio := medianFloat(s.ratios)
		ratios = append(ratios, ratio)
		c := bench.Compare(s.bare, s.ours, alpha)
		svc := bench.Compare(s.bareSvc, s.oursSvc, alpha)
		per := make([]string, len(s.ratios))
		for i, r := range s.ratios {
			per[i] = fmt.Sprintf("%.3f", r)
		}
		b.Notes = append(b.Notes, fmt.Sprintf("harness overhead, batch %d: instrumented explicit loop / bare franz-go loop (same client options and calls as the worker, same pacing, no history, recorder or driver), txn_total_duration p50, median of the ratios of %d paired runs (%s) = %.3f (per run: %s; medians of the p50s %.3f / %.3f ms; U test of the two sides: %s); txn_service_duration (begin to commit returned) p50 %.3f / %.3f ms = %.3f, %s",
			batch, len(s.ratios), pairing, ratio, strings.Join(per, ", "), c.CandidateMedian, c.BaselineMedian, c.Words("the instrumented loop", "the bare loop"),
			svc.CandidateMedian, svc.BaselineMedian, svc.Ratio, svc.Words("the instrumented loop", "the bare loop")))
		where := ""
		if ph, err := readPhases(s.dirs); err != nil {
			where = "not broken down: " + err.Error()
		} else {
			where = ph.words()
		}
		if s.saturated > 0 {
			where = fmt.Sprintf("saturated: in %d of %d paired runs a side dropped ticks (the cluster did not keep up with the rate on both sides at once), so their p50s are queueing behind the backlog, not transactions; measure at a lower --rate; %s", s.saturated, len(s.ratios), where)
		}
		wheres = append(wheres, where)
		b.Notes = append(b.Notes, fmt.Sprintf("harness overhead, batch %d, where the time goes: %s", batch, where))
	}
	if len(ratios) == 0 {
		return 0
	}
	figure := math.Round(medianFloat(ratios)*1000) / 1000
	b.HarnessOverheadWhy = overheadWhy(figure, batches, ratios, wheres)
	return figure
}

// overheadBand is how close to 1 the harness overhead must be to count as
// no cost worth naming.
const overheadBand = 0.03

// overheadWhy says in words what the figure means: within the band, or why
// not, with the breakdown of the batch size whose figure is the median.
func overheadWhy(figure float64, batches []int, ratios []float64, wheres []string) string {
	at := 0
	for i, r := range ratios {
		if math.Abs(r-figure) < math.Abs(ratios[at]-figure) {
			at = i
		}
	}
	where := fmt.Sprintf("batch %d (%.3f): %s", batches[at], ratios[at], wheres[at])
	if strings.HasPrefix(wheres[at], "saturated") {
		return fmt.Sprintf("not a measure of the harness: %s", where)
	}
	switch {
	case figure > 1+overheadBand:
		return fmt.Sprintf("above %.2f: the instrumented loop is slower than the bare one by more than the band; where its time goes, measured in the same runs: %s", 1+overheadBand, where)
	case figure < 1-overheadBand:
		return fmt.Sprintf("below %.2f: the instrumented loop faster than the bare one is noise or a difference between the loops the bench does not know of; %s", 1-overheadBand, where)
	}
	return fmt.Sprintf("within %.2f-%.2f: the harness's own work is no more than %.0f %% of a transaction here; %s", 1-overheadBand, 1+overheadBand, overheadBand*100, where)
}

func orWords(s, alt string) string {
	if s != "" {
		return "failed: " + s
	}
	return alt
}

func medianFloat(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
