package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/sharechaos/sharechaos/result"
)

// curvePlot draws latency against achieved throughput, a line per curve
// with a mark at each rate, and the levels (a floor) across. Latency is on a
// log scale: past saturation a mode's latency is its queue, seconds, and
// must not flatten the milliseconds below it.
func curvePlot(f result.Figure, leg *plot.Legend) (*plot.Plot, error) {
	p := newPlot(f.Title, "transactions/s achieved", f.YLabel+" (log scale)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	maxX, minY, maxY, lines := 0.0, math.Inf(1), 0.0, 0
	for _, c := range f.Curves {
		var xys plotter.XYs
		for _, pt := range c.Points {
			if pt.ValueMs <= 0 || math.IsNaN(pt.ValueMs) || math.IsInf(pt.ValueMs, 0) || pt.Tps < 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: pt.Tps, Y: pt.ValueMs})
			maxX, minY, maxY = math.Max(maxX, pt.Tps), math.Min(minY, pt.ValueMs), math.Max(maxY, pt.ValueMs)
		}
		if len(xys) == 0 {
			continue
		}
		l, marks, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", f.Title, err)
		}
		l.Color = colourOf(keyOr(c.Key, c.Label))
		l.Width = vg.Points(1.5)
		if c.Dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		marks.Color = l.Color
		p.Add(l, marks)
		leg.Add(c.Label, l, marks)
		lines++
	}
	if lines == 0 {
		return nil, errNoData
	}
	for _, lv := range f.Levels {
		if lv.ValueMs <= 0 {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: lv.ValueMs}, {X: math.Max(maxX*1.05, 1), Y: lv.ValueMs}})
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", f.Title, err)
		}
		l.Color = color.NRGBA{R: 120, G: 120, B: 120, A: 255}
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		leg.Add(lv.Label, l)
		minY, maxY = math.Min(minY, lv.ValueMs), math.Max(maxY, lv.ValueMs)
	}
	p.X.Min, p.X.Max = 0, math.Max(maxX*1.05, 1)
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(minY)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(maxY*1.0001)))
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min * 10
	}
	return p, nil
}
