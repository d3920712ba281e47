package reports

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot size in report.html; the legend has its own column right of the
// data, so it never hides a line.
const (
	plotWidth   = 12 * vg.Inch
	plotHeight  = 3.6 * vg.Inch
	legendWidth = 2.2 * vg.Inch
)

// errNoData marks a figure with nothing to draw; the HTML leaves it out.
var errNoData = errors.New("no data to plot")

// RenderSVG draws a figure as an SVG document (gonum/plot, fonts not embedded:
// the browser's sans-serif stands in), ready to inline in HTML.
func RenderSVG(f result.Figure) (string, error) {
	var p *plot.Plot
	var err error
	leg := plot.NewLegend()
	switch {
	case len(f.Curves) > 0:
		p, err = curvePlot(f, &leg)
	case len(f.Spectra) > 0:
		p, err = spectrumPlot(f, &leg)
	default:
		p, err = timePlot(f, &leg)
	}
	if err != nil {
		return "", err
	}
	c := vgsvg.New(plotWidth, plotHeight)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	leg.Top, leg.Left = true, true
	leg.YOffs = -p.Title.TextStyle.Height(p.Title.Text) - vg.Points(12)
	leg.Draw(draw.Crop(dc, plotWidth-legendWidth+vg.Points(6), 0, 0, 0))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("render %q: %w", f.Title, err)
	}
	svg := buf.String()
	// Inline SVG wants no XML declaration.
	if i := strings.Index(svg, "<svg"); i > 0 {
		svg = svg[i:]
	}
	return svg, nil
}

// spectrumPlot draws the percentile spectrum HdrHistogram's plotter draws: x
// is 1/(1-p) on a log scale, labelled as percentiles, so the tail (99%,
// 99.9%, ...) gets as much room as the body.
//
// The latency axis is logarithmic too: a 5 s tail of one metric must not
// flatten a 5 ms body of another onto the axis.
func spectrumPlot(f result.Figure, leg *plot.Legend) (*plot.Plot, error) {
	p := newPlot(f.Title, "percentile", f.YLabel+" (log scale)")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.TickerFunc(percentileTicks)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	maxX, maxY, minY, lines := 10.0, 0.0, math.Inf(1), 0
	for _, s := range f.Spectra {
		xys := spectrumXYs(s.Points)
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", f.Title, err)
		}
		l.Color = colourOf(keyOr(s.Key, s.Label))
		l.Width = vg.Points(1.5)
		p.Add(l)
		leg.Add(s.Label, l)
		lines++
		for _, xy := range xys {
			maxX, maxY, minY = math.Max(maxX, xy.X), math.Max(maxY, xy.Y), math.Min(minY, xy.Y)
		}
	}
	if lines == 0 {
		return nil, errNoData
	}
	p.X.Min, p.X.Max = 1, math.Pow(10, math.Ceil(math.Log10(maxX)))
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(minY)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(maxY*1.0001)))
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min * 10
	}
	return p, nil
}

// spectrumXYs maps percentiles to x = 1/(1-p). The 100% point (the max) has
// no finite x: it is drawn one step right of the last finite point.
func spectrumXYs(points []result.SpectrumPoint) plotter.XYs {
	var xys plotter.XYs
	lastX := 1.0
	for _, pt := range points {
		if pt.Percentile >= 100 {
			if pt.ValueMs <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: lastX * 2, Y: pt.ValueMs})
			continue
		}
		x := 1 / (1 - pt.Percentile/100)
		// A log latency axis has no place for 0 (a sub-microsecond value).
		if x < 1 || math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(pt.ValueMs) || pt.ValueMs <= 0 {
			continue
		}
		lastX = x
		xys = append(xys, plotter.XY{X: x, Y: pt.ValueMs})
	}
	return xys
}

// percentileTicks labels each decade of 1/(1-p) with its percentile:
// 1 -> 0%, 10 -> 90%, 100 -> 99%, 1000 -> 99.9%.
func percentileTicks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for d, i := 1.0, 0; d <= max*1.0001; d, i = d*10, i+1 {
		var label string
		switch {
		case i == 0:
			label = "0%"
		case i == 1:
			label = "90%"
		case i == 2:
			label = "99%"
		default:
			label = "99." + strings.Repeat("9", i-2) + "%"
		}
		if d >= min {
			ticks = append(ticks, plot.Tick{Value: d, Label: label})
		}
	}
	return ticks
}

// timePlot draws lines over seconds since the start, fault windows shaded
// behind them. The x axis starts at 0, the start.
func timePlot(f result.Figure, leg *plot.Legend) (*plot.Plot, error) {
	p := newPlot(f.Title, "seconds since start", f.YLabel)
	minX, maxX, maxY := 0.0, math.Inf(-1), 0.0
	var lines []*plotter.Line
	for _, s := range f.Series {
		if len(s.Points) == 0 {
			continue
		}
		xys := make(plotter.XYs, 0, len(s.Points))
		for _, pt := range s.Points {
			if math.IsNaN(pt.Value) || math.IsInf(pt.Value, 0) {
				continue
			}
			x := pt.Offset.Seconds()
			xys = append(xys, plotter.XY{X: x, Y: pt.Value})
			minX, maxX, maxY = math.Min(minX, x), math.Max(maxX, x), math.Max(maxY, pt.Value)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", f.Title, err)
		}
		l.Color = colourOf(keyOr(s.Key, s.Label))
		l.Width = vg.Points(1.5)
		lines = append(lines, l)
		leg.Add(s.Label, l)
	}
	if len(lines) == 0 {
		return nil, errNoData
	}
	top := niceMax(maxY)
	shaded := map[string]bool{}
	for _, sh := range f.Shades {
		from, to := sh.From.Seconds(), sh.To.Seconds()
		if to-from < 0.2 {
			// An instant fault still gets a visible band.
			to = from + 0.2
		}
		minX, maxX = math.Min(minX, from), math.Max(maxX, to)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: from, Y: 0}, {X: to, Y: 0}, {X: to, Y: top}, {X: from, Y: top}})
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", f.Title, err)
		}
		poly.Color = color.NRGBA{R: 230, G: 85, B: 13, A: 45}
		poly.LineStyle.Width = 0
		p.Add(poly) // before the lines: drawn behind them
		label := "fault fired to healed"
		if sh.Label != "" {
			label = "fault: " + sh.Label
		}
		if !shaded[label] { // a fault repeated (a soak) is one legend entry
			shaded[label] = true
			leg.Add(label, poly)
		}
	}
	for _, l := range lines {
		p.Add(l)
	}
	if maxX <= minX {
		maxX = minX + 1
	}
	p.X.Min, p.X.Max = minX, maxX
	p.Y.Min, p.Y.Max = 0, top
	return p, nil
}

// keyOr is the colour key: the figure's key, else its label.
func keyOr(key, label string) string {
	if key != "" {
		return key
	}
	return label
}

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	return p
}

// niceMax leaves headroom above the largest value; never 0, so an all-zero
// line still gets an axis.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) {
		return 1
	}
	return v * 1.1
}
