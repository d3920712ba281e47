package reports

import (
	"fmt"
	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// WriteBenchHTML writes a bench run's report.html: self-contained (inline CSS
// and SVG), with the comparison tables, thresholds, the figures per batch size
// (figs; nil for none) and every repeat.
func WriteBenchHTML(w io.Writer, b result.Bench, figs result.BenchFigures) error {
	v := benchView{
		B:       b,
		Words:   b.Verdict.Words(),
		Backend: backendWords(b.Backend, b.BackendWhy),
		Load:    ratesWords(b.Rates) + ", " + seconds(b.RepeatDurationS) + " per repeat",
		Dur:     seconds(b.DurationS),
		Modes:   strings.Join(b.Modes, ", "),
		Tables:  benchTables(b),
		Curves:  curveTables(b),
		Total:   bench.TxnTotalDuration, Commit: bench.TxnCommitDuration, Dropped: bench.DroppedIterations,
	}
	if !b.Started.IsZero() {
		v.Started = b.Started.Format(time.RFC3339)
	}
	for _, batch := range slices.Sorted(maps.Keys(figs)) {
		if fv := renderFigures(figs[batch]); len(fv) > 0 {
			v.Figures = append(v.Figures, batchFigures{Batch: batch, Figures: fv})
		}
	}
	for _, c := range b.Comparisons {
		for _, w := range c.Warnings {
			s := fmt.Sprintf("%s batch %d %s %s: %s", c.Candidate, c.Batch, c.Metric, c.Percentile, w)
			if pt := c.Point(); pt != "" {
				s = fmt.Sprintf("%s batch %d (%s) %s %s: %s", c.Candidate, c.Batch, pt, c.Metric, c.Percentile, w)
			}
			if !slices.Contains(v.Warnings, s) {
				v.Warnings = append(v.Warnings, s)
			}
		}
	}
	if err := benchTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("write bench html: %w", err)
	}
	return nil
}

type benchView struct {
	B                                  result.Bench
	Words, Backend, Load, Dur, Started string
	Modes                              string
	Tables                             []benchTable
	Curves                             []cellTable
	Figures                            []batchFigures
	Warnings                           []string
	// The metrics the repeats table shows (bench's names).
	Total, Commit, Dropped string
}

type batchFigures struct {
	Batch   int
	Figures []figureView
}

var benchTemplate = template.Must(template.New("bench").Funcs(templateFuncs).Funcs(template.FuncMap{
	"r3":         func(f float64) string { return fmt.Sprintf("%g", round3(f)) },
	"dash":       dash,
	"inc":        func(i int) int { return i + 1 },
	"at":         func(m map[string]result.Percentiles, k string) result.Percentiles { return m[k] },
	"floorTable": floorTable,
	"attribution": func(b result.Bench) *cellTable {
		if t, ok := attributionTable(b); ok {
			return &t
		}
		return nil
	},
	"attributionIntro": attributionIntro,
	"brokerTimes": func(b result.Bench) *cellTable {
		if t, ok := brokerTable(b); ok {
			return &t
		}
		return nil
	},
	"brokerIntro":   brokerIntro,
	"brokerMissing": brokerMissing,
	"curvesIntro":   curvesIntro,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>sharechaos bench: {{.B.Verdict}}</title>
<style>` + pageStyle + `</style>
</head>
<body>
<h1>sharechaos bench: <span class="v {{vclass .B.Verdict}}">{{.B.Verdict}}</span></h1>
<p class="words">{{.B.Verdict}}: {{.Words}} (exit code {{.B.ExitCode}}).</p>
{{if .B.Interrupted}}<p class="interrupted"><b>Interrupted</b>: the bench was stopped before it ended; what follows is what was measured until then.</p>{{end}}
<table class="facts">
<tr><th>seed</th><td>{{.B.Seed}}</td></tr>
<tr><th>backend</th><td>{{.Backend}}</td></tr>
{{if .Started}}<tr><th>started</th><td>{{.Started}}</td></tr>{{end}}
<tr><th>duration</th><td>{{.Dur}}</td></tr>
<tr><th>load</th><td>{{.Load}}</td></tr>
<tr><th>repeats</th><td>{{.B.Repeats}} per mode and batch size, modes interleaved</td></tr>
<tr><th>modes</th><td>{{.Modes}} (baseline: {{.B.Baseline}})</td></tr>
{{if gt .B.HarnessOverhead 0.0}}<tr><th>harness overhead</th><td>{{r3 .B.HarnessOverhead}} (instrumented txn_total_duration p50 / a bare franz-go loop's)</td></tr>{{end}}
{{if .B.HarnessOverheadWhy}}<tr><th>harness overhead, why</th><td>{{.B.HarnessOverheadWhy}}</td></tr>{{end}}
{{if .B.Command}}<tr><th>command</th><td><code>{{.B.Command}}</code></td></tr>{{end}}
</table>
<p>Each comparison is a Mann-Whitney U test (two-sided, alpha {{.B.Alpha}}) whose unit is one repeat: a mode's sample is the percentile of each of its repeats, so n = {{.B.Repeats}} per mode. "No significant difference" means p &ge; alpha; with fewer than 4 repeats a side no difference can reach 0.05 at all, and the table says so. Ratios are of the medians over repeats.</p>

{{if .B.Floors}}{{with floorTable .B}}<h2 id="floor">{{.Title}}</h2>
<p>One operation at a time on the bench's cluster, before the runs at each link latency: what a commit cannot go below.</p>
{{template "cells" .}}{{end}}{{end}}
{{with attribution .B}}<h2 id="attribution">{{.Title}}</h2>
<p>{{attributionIntro $.B}}</p>
{{template "cells" .}}{{end}}
{{with brokerTimes .B}}<h2 id="broker-times">{{.Title}}</h2>
<p>{{brokerIntro}}</p>
{{template "cells" .}}{{else}}{{with brokerMissing $.B}}<h2 id="broker-times">Where the brokers spend a transaction's time</h2>
<p>Not read: {{.}}</p>{{end}}{{end}}
{{if .Curves}}<h2 id="curves">Load curves</h2>
<p>{{curvesIntro .B}} The plots are under each batch size's heading below.</p>
{{range .Curves}}<h3>{{.Title}}</h3>
{{template "cells" .}}{{end}}{{end}}

<h2 id="comparison">Comparison</h2>
{{range .Tables}}<h3>{{.Title}}</h3>
<table><tr><th>mode</th><th>repeats</th><th>p50 ms</th><th>p99 ms</th><th>txn/s</th><th>p50 vs {{$.B.Baseline}}</th><th>p50 p-value</th><th>p99 vs {{$.B.Baseline}}</th><th>p99 p-value</th><th>verdict</th></tr>
{{range .Rows}}<tr><td>{{.Mode}}{{if .Baseline}} (baseline){{end}}</td><td class="n">{{.Repeats}}</td><td class="n">{{r3 .P50}}</td><td class="n">{{r3 .P99}}</td><td class="n">{{r3 .TxnPerSec}}</td><td class="n">{{dash .Ratio50}}</td><td class="n">{{dash .PValue50}}</td><td class="n">{{dash .Ratio99}}</td><td class="n">{{dash .PValue99}}</td><td>{{.Words}}</td></tr>
{{end}}</table>
{{else}}<p>No repeat recorded any latency.</p>{{end}}

{{if .B.Thresholds}}<h2 id="thresholds">Thresholds</h2>
<table><tr><th>threshold</th><th>scope</th><th>observed</th><th>result</th></tr>
{{range .B.Thresholds}}<tr><td><code>{{.Threshold}}</code></td><td>{{or .Scope "-"}}</td><td class="n">{{num .Observed}}{{.Unit}}</td><td>{{if .Pass}}<span class="ok">pass</span>{{else}}<span class="bad">FAILED</span> {{.Reason}}{{end}}</td></tr>
{{end}}</table>
{{end}}

{{range .Figures}}<h2 id="batch-{{.Batch}}">Plots, batch {{.Batch}}</h2>
{{range .Figures}}<figure>{{if .Err}}<p class="note">plot {{.Title}} could not be drawn: {{.Err}}</p>{{else}}{{.SVG}}{{end}}</figure>
{{end}}{{end}}

{{if or .Warnings .B.Notes}}<h2 id="notes">Notes</h2>
<ul>{{range .B.Notes}}<li>{{.}}</li>{{end}}{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2 id="repeats">Repeats</h2>
<table><tr><th>#</th><th>mode</th><th>batch</th><th>repeat</th><th>txn/s</th><th>records/s</th><th>txn_total p50 / p99 ms</th><th>txn_commit p50 / p99 ms</th><th>dropped</th><th>error</th></tr>
{{range $i, $r := .B.Runs}}{{$t := at $r.Latency $.Total}}{{$c := at $r.Latency $.Commit}}<tr><td class="n">{{inc $i}}</td><td>{{$r.Label}}{{with $r.Point}} ({{.}}){{end}}</td><td class="n">{{$r.Batch}}</td><td class="n">{{$r.Repeat}}</td><td class="n">{{r3 $r.TxnPerSec}}</td><td class="n">{{r3 $r.RecordsPerSec}}</td><td class="n">{{ms $t.P50}} / {{ms $t.P99}}</td><td class="n">{{ms $c.P50}} / {{ms $c.P99}}</td><td class="n">{{index $r.Counters $.Dropped}}</td><td>{{dash $r.Error}}</td></tr>
{{end}}</table>
{{if .B.Config}}<h2 id="settings">Settings</h2>
<table><tr><th>setting</th><th>value</th></tr>
{{range $k, $v := .B.Config}}<tr><td>{{$k}}</td><td>{{$v}}</td></tr>
{{end}}</table>{{end}}
</body>
</html>
{{define "cells"}}<table><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{if .Words}}<ul>{{range .Words}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
`))
