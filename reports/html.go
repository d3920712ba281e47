package reports

import (
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// WriteHTML writes report.html: one self-contained page (inline CSS and SVG,
// nothing loaded from the network) with the verdict matrix coloured by verdict,
// the cell table, the anomalies with their examples, and each cell's figures
// (figs by Cell.ID(); nil for none). A figure that cannot be drawn is replaced
// by a note, not an error: the page matters more than one plot.
func WriteHTML(w io.Writer, r result.Result, figs result.Figures) error {
	return writeHTML(w, r, figs, r.Dir)
}

// writeHTML is WriteHTML for the run directory dir (where the cells' files
// are found for the links; the links themselves are relative).
func writeHTML(w io.Writer, r result.Result, figs result.Figures, dir string) error {
	v := runView{
		R:       r,
		Words:   r.Verdict.Words(),
		Tally:   verdictTally(r.Runs),
		Backend: backendWords(r.Backend, r.BackendWhy),
		Replay:  ReplayCommand(r),
		Dur:     seconds(r.DurationS),
		Matrix:  buildMatrix(r.Runs),
	}
	if !r.Started.IsZero() {
		v.Started = r.Started.Format(time.RFC3339)
	}
	for _, c := range r.Runs {
		label := cellLabel(c, r.Runs)
		cv := cellView{C: c, Label: label, Anchor: anchor(label), Fault: faultWords(c.Fault), Allowed: allowedWords(c.Allowed)}
		for _, m := range slices.Sorted(maps.Keys(c.Latency)) {
			cv.Latency = append(cv.Latency, latencyRow{Metric: m, P: c.Latency[m], Few: c.Latency[m].Count < fewSamples})
		}
		if p, ok := c.Latency[commitMetric]; ok && p.Count < fewSamples {
			cv.FewCommits = p.Count
		}
		cv.Links = cellLinks(dir, c)
		cv.Figures = renderFigures(figs[c.ID()])
		v.Cells = append(v.Cells, cv)
		if !slices.Contains(v.Scenarios, c.Scenario) {
			v.Scenarios = append(v.Scenarios, c.Scenario)
		}
		if c.Realization != "" && !slices.Contains(v.Realizations, c.Realization) {
			v.Realizations = append(v.Realizations, c.Realization)
		}
		for _, name := range slices.Sorted(maps.Keys(c.Anomalies)) {
			v.Anomalies = append(v.Anomalies, anomalyView{
				Cell: label, Anchor: cv.Anchor, Name: name, Found: c.Anomalies[name],
				Allowed: slices.Contains(c.Allowed, name),
			})
		}
	}
	for _, s := range v.Scenarios {
		if fs := renderFigures(figs[result.ScenarioKey(s)]); len(fs) > 0 {
			v.Overlays = append(v.Overlays, overlayView{Scenario: s, Figures: fs})
		}
	}
	for _, d := range dimensionViews {
		if cs := d.comparisons(r); len(cs) > 0 {
			v.Compared = append(v.Compared, comparedView{ID: d.dim.Name + "s", Title: d.heading, Column: d.column, Against: d.compared, Rows: cs})
		}
	}
	v.Why = cellsWithReasons(r.Runs)
	for i := range v.Why {
		v.Why[i].Reason = reasonWords(v.Why[i].Reason)
	}
	if len(v.Why) > 0 {
		v.WhyLabels = map[string]string{}
		for _, c := range v.Why {
			v.WhyLabels[c.ID()] = cellLabel(c, r.Runs)
		}
	}
	if err := runTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}

type runView struct {
	R                             result.Result
	Words, Tally, Backend, Replay string
	Started, Dur                  string
	Matrix                        matrixView
	Cells                         []cellView
	Anomalies                     []anomalyView
	Why                           []result.Cell
	WhyLabels                     map[string]string
	Scenarios, Realizations       []string
	Overlays                      []overlayView
	// Compared are the comparisons along each plan dimension with two
	// values or more (releases, clients).
	Compared []comparedView
}

// comparedView is one dimension's comparisons (reports/dimensions.go).
type comparedView struct {
	ID, Title, Column, Against string
	Rows                       []result.Comparison
}

type overlayView struct {
	Scenario string
	Figures  []figureView
}

type cellView struct {
	C              result.Cell
	Label, Anchor  string
	Fault, Allowed string
	Latency        []latencyRow
	Figures        []figureView
	// FewCommits is the commit count when it is too few for a p99 (0: enough).
	FewCommits int64
	Links      []link
}

type latencyRow struct {
	Metric string
	P      result.Percentiles
	// Few: the high percentiles rest on fewer than fewSamples values.
	Few bool
}

type anomalyView struct {
	Cell, Anchor, Name string
	Found              verdict.Found
	Allowed            bool
}

type figureView struct {
	Title string
	SVG   template.HTML
	Err   string
}

// matrixView pivots the cells: a row per scenario, a column per
// mode/backend[/realization]; a square shows the worst verdict of its repeats.
type matrixView struct {
	Columns []string
	Rows    []matrixRow
}

type matrixRow struct {
	Scenario string
	Squares  []matrixSquare
}

type matrixSquare struct {
	Verdict verdict.Verdict
	Repeats int
	Anchor  string
}

func buildMatrix(cells []result.Cell) matrixView {
	var m matrixView
	var scenarios []string
	col := func(c result.Cell) string { return strings.TrimPrefix(c.Name(), c.Scenario+"/") }
	for _, c := range cells {
		if !slices.Contains(scenarios, c.Scenario) {
			scenarios = append(scenarios, c.Scenario)
		}
		if !slices.Contains(m.Columns, col(c)) {
			m.Columns = append(m.Columns, col(c))
		}
	}
	for _, s := range scenarios {
		row := matrixRow{Scenario: s}
		for _, k := range m.Columns {
			var vs []verdict.Verdict
			sq := matrixSquare{}
			for _, c := range cells {
				if c.Scenario == s && col(c) == k {
					vs = append(vs, c.Verdict)
					if sq.Anchor == "" {
						sq.Anchor = anchor(cellLabel(c, cells))
					}
				}
			}
			sq.Repeats = len(vs)
			if len(vs) > 0 {
				sq.Verdict = worstOrNA(vs)
			}
			row.Squares = append(row.Squares, sq)
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// worstOrNA is verdict.Worst, except that a square whose cells are all N/A
// says N/A rather than PASS.
func worstOrNA(vs []verdict.Verdict) verdict.Verdict {
	for _, v := range vs {
		if v != verdict.NA {
			return verdict.Worst(vs...)
		}
	}
	return verdict.NA
}

func renderFigures(figs []result.Figure) []figureView {
	var out []figureView
	for _, f := range figs {
		svg, err := RenderSVG(f)
		switch {
		case errors.Is(err, errNoData):
			continue
		case err != nil:
			out = append(out, figureView{Title: f.Title, Err: err.Error()})
		default:
			// The SVG is ours (gonum/plot escapes the text it draws).
			out = append(out, figureView{Title: f.Title, SVG: template.HTML(svg)})
		}
	}
	return out
}

// anchor turns a label into an HTML id.
func anchor(label string) string {
	var b strings.Builder
	b.WriteString("cell-")
	for _, r := range label {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// verdictClass is the CSS class that colours a verdict.
func verdictClass(v verdict.Verdict) string {
	switch v {
	case verdict.Pass:
		return "v-pass"
	case verdict.Anomaly:
		return "v-anomaly"
	case verdict.Unknown:
		return "v-unknown"
	case verdict.NA:
		return "v-na"
	case verdict.ThresholdFailed:
		return "v-threshold"
	case "":
		return "v-none"
	}
	return "v-harness"
}

var templateFuncs = template.FuncMap{
	"vclass": verdictClass,
	"ms":     msWords,
	"where":  comparedWhere,
	"num":    func(f float64) string { return fmt.Sprintf("%g", f) },
	"join":   strings.Join,
}

const pageStyle = `
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em;color:#222;max-width:1400px}
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em;display:block;overflow-x:auto;max-width:100%}
.few{color:#8a4300;font-size:.85em}.pair{display:grid;grid-template-columns:1fr 1fr;gap:.5em}.links a{margin-right:.8em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.v{font-weight:bold;padding:.1em .4em;border-radius:3px;white-space:nowrap}
.v-pass{background:#d4f4d4;color:#135d13}.v-anomaly{background:#f9d0d0;color:#8b0000}
.v-unknown{background:#fdf0c2;color:#7a5a00}.v-na{background:#e8e8e8;color:#555}
.v-harness{background:#e5d4f5;color:#4b136f}.v-threshold{background:#fde0c2;color:#8a4300}.v-none{background:#fff}
td.v-pass,td.v-anomaly,td.v-unknown,td.v-na,td.v-harness,td.v-threshold{text-align:center}
td a{color:inherit}
pre{background:#f7f7f7;border:1px solid #e3e3e3;padding:.5em;overflow-x:auto;font-size:.85em}
.words{font-size:1.1em}.note{color:#7a5a00}.bad{color:#8b0000;font-weight:bold}.ok{color:#135d13}
figure{margin:.8em 0}figcaption{font-size:.85em;color:#555}
figure svg{max-width:100%;height:auto}
.interrupted{background:#fdf0c2;padding:.5em;border:1px solid #e0c060}
`

var runTemplate = template.Must(template.New("run").Funcs(templateFuncs).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>sharechaos run: {{.R.Verdict}}</title>
<style>` + pageStyle + `</style>
</head>
<body>
<h1>sharechaos run: <span class="v {{vclass .R.Verdict}}">{{.R.Verdict}}</span></h1>
<p class="words">{{.R.Verdict}}: {{.Words}} (exit code {{.R.ExitCode}}). {{.Tally}}</p>
{{if .R.Interrupted}}<p class="interrupted"><b>Interrupted</b>: the run was stopped before it ended; what follows is what was recorded until then.</p>{{end}}
<table class="facts">
<tr><th>seed</th><td>{{.R.Seed}}</td></tr>
<tr><th>backend</th><td>{{.Backend}}</td></tr>
{{range .R.Cluster.Rows}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}{{if .Started}}<tr><th>started</th><td>{{.Started}}</td></tr>{{end}}
<tr><th>duration</th><td>{{.Dur}}</td></tr>
{{if .Realizations}}<tr><th>realization</th><td>{{join .Realizations ", "}} (how the transactional mode puts its acks in the transaction)</td></tr>{{end}}
<tr><th>replay</th><td><code>{{.Replay}}</code></td></tr>
</table>

<h2 id="matrix">Matrix</h2>
{{if .Matrix.Rows}}
<table class="matrix">
<tr><th>scenario</th>{{range .Matrix.Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Matrix.Rows}}<tr><th>{{.Scenario}}</th>{{range .Squares}}{{if .Verdict}}<td class="{{vclass .Verdict}}"><a href="#{{.Anchor}}">{{.Verdict}}</a>{{if gt .Repeats 1}} ×{{.Repeats}}{{end}}</td>{{else}}<td class="v-none"></td>{{end}}{{end}}</tr>
{{end}}</table>
{{else}}<p>No cell ran.</p>{{end}}


<h2 id="cells">Cells</h2>
{{if .Cells}}
<table class="cells">
<tr><th>cell</th><th>realization</th><th>verdict</th><th>commit p50 / p99 ms</th><th>input</th><th>processed</th><th>duplicated</th><th>extra outputs</th><th>lost</th><th>archived</th><th>unseen</th><th>aborted reads</th><th>torn txns</th><th>phantoms</th><th>fault</th><th>allowed anomalies</th></tr>
{{range .Cells}}<tr>
<td><a href="#{{.Anchor}}">{{.Label}}</a></td><td>{{or .C.Realization "-"}}</td><td class="{{vclass .C.Verdict}}">{{.C.Verdict}}</td>
{{if eq (print .C.Verdict) "N/A"}}<td colspan="11">{{or .C.Reason "not applicable"}}</td>{{else}}
<td class="n">{{ms .C.CommitP50Ms}} / {{ms .C.CommitP99Ms}}{{if .FewCommits}} <span class="few" title="the p99 of {{.FewCommits}} commits is their maximum, near enough">⚠ n={{.FewCommits}}</span>{{end}}</td><td class="n">{{.C.Input}}</td><td class="n">{{.C.Processed}}</td><td class="n">{{.C.Duplicated}}</td><td class="n">{{.C.ExtraOutputs}}</td><td class="n">{{.C.Lost}}</td><td class="n">{{.C.Archived}}</td><td class="n">{{.C.Unseen}}</td><td class="n">{{.C.AbortedReads}}</td><td class="n">{{.C.TornTxns}}</td><td class="n">{{.C.Phantoms}}</td>{{end}}
<td>{{.Fault}}</td><td>{{.Allowed}}</td>
</tr>
{{end}}</table>
{{end}}

{{if .Overlays}}<h2 id="modes">Modes compared</h2>
<p>Per scenario, each mode's percentile spectrum (first repeat) on a log latency axis; a mode has the same colour in every figure.</p>
{{range .Overlays}}<h3>{{.Scenario}}</h3>
<div class="pair">{{range .Figures}}<figure>{{if .Err}}<p class="note">plot {{.Title}} could not be drawn: {{.Err}}</p>{{else}}{{.SVG}}{{end}}</figure>
{{end}}</div>{{end}}{{end}}

{{range .Compared}}<h2 id="{{.ID}}">{{.Title}}</h2>
<p>Each {{.Column}}'s commit latency (txn_commit_duration) against {{.Against}}'s, per scenario and mode, by the Mann-Whitney U test: over every commit of its cell, or, with --repeats 2 or more, over each repeat's p50 (the bench's unit).</p>
<table><tr><th>scenario</th><th>mode</th><th>{{.Column}}</th><th>vs</th><th>median ms</th><th>baseline median ms</th><th>ratio</th><th>n</th><th>unit</th><th>result</th></tr>
{{range .Rows}}<tr><td>{{.Scenario}}</td><td>{{.Mode}}{{with where .}} {{.}}{{end}}</td><td>{{.Candidate}}</td><td>{{.Baseline}}</td><td class="n">{{ms .CandidateMedianMs}}</td><td class="n">{{ms .BaselineMedianMs}}</td><td class="n">{{num .Ratio}}</td><td class="n">{{.N1}}+{{.N2}}</td><td>{{.Unit}}</td><td>{{.Words}}</td></tr>
{{end}}</table>
{{end}}

{{if .Why}}<h2 id="why">Why</h2>
<ul>{{range .Why}}<li><b>{{index $.WhyLabels .ID}}</b> <span class="v {{vclass .Verdict}}">{{.Verdict}}</span>: {{.Reason}}</li>{{end}}</ul>
{{end}}

{{if .R.Thresholds}}<h2 id="thresholds">Thresholds</h2>
<table><tr><th>threshold</th><th>scope</th><th>observed</th><th>result</th></tr>
{{range .R.Thresholds}}<tr><td><code>{{.Threshold}}</code></td><td>{{or .Scope "-"}}</td><td class="n">{{num .Observed}}{{.Unit}}</td><td>{{if .Pass}}<span class="ok">pass</span>{{else}}<span class="bad">FAILED</span> {{.Reason}}{{end}}</td></tr>
{{end}}</table>
{{end}}

{{if .Anomalies}}<h2 id="anomalies">Anomalies</h2>
{{range .Anomalies}}<h3><a href="#{{.Anchor}}">{{.Cell}}</a>: {{.Name}} × {{.Found.Count}} {{if .Allowed}}<span class="ok">(allowed in this mode)</span>{{else}}<span class="bad">(NOT allowed in this mode)</span>{{end}}</h3>
{{if .Found.Examples}}<ol>{{range .Found.Examples}}<li>record <code>{{.Record}}</code>: {{.Summary}}{{if .Fault}}<br>fault then: {{.Fault}}{{end}}{{if .Steps}}<pre>{{range .Steps}}{{.}}
{{end}}</pre>{{end}}</li>
{{end}}</ol>{{else}}<p>No example kept.</p>{{end}}
{{end}}{{end}}

{{if .Cells}}<h2 id="details">Cell details</h2>
{{range .Cells}}<section id="{{.Anchor}}">
<h3>{{.Label}} <span class="v {{vclass .C.Verdict}}">{{.C.Verdict}}</span></h3>
{{if .C.Reason}}<p>{{.C.Reason}}</p>{{end}}
{{range .C.Notes}}<p class="note">{{.}}</p>{{end}}
{{if .Links}}<p class="links">files: {{range .Links}}<a href="{{.Href}}">{{.Text}}</a>{{end}}</p>{{end}}
{{if .Latency}}<table><tr><th>metric</th><th>count</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th></tr>
{{range .Latency}}<tr><td>{{.Metric}}</td><td class="n">{{.P.Count}}{{if .Few}} <span class="few">⚠ few samples: p99 and p99.9 are near the max</span>{{end}}</td><td class="n">{{ms .P.P50}}</td><td class="n">{{ms .P.P90}}</td><td class="n">{{ms .P.P99}}</td><td class="n">{{ms .P.P999}}</td><td class="n">{{ms .P.Max}}</td></tr>
{{end}}</table>{{end}}
{{range .Figures}}<figure>{{if .Err}}<p class="note">plot {{.Title}} could not be drawn: {{.Err}}</p>{{else}}{{.SVG}}{{end}}</figure>
{{end}}
</section>
{{end}}{{end}}

<h2 id="replay">Replay</h2>
<pre>{{.Replay}}</pre>
{{if .R.Config}}<h2 id="settings">Settings</h2>
<table><tr><th>setting</th><th>value</th></tr>
{{range $k, $v := .R.Config}}<tr><td>{{$k}}</td><td>{{$v}}</td></tr>
{{end}}</table>{{end}}
</body>
</html>
`))
