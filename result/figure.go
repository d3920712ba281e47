package result

import "time"

// Figure is the data behind one plot of report.html. It is plain data so that
// reports needs no histogram library: the bench package fills figures from its
// histograms (bench.SpectrumFigure, bench.LatencyOverTime, bench.ThroughputOverTime).
//
// A figure with Spectra is a percentile spectrum (x: percentile on a log scale of
// 1/(1-p), y: milliseconds); a figure with Series is a plot over time (x: seconds
// since the start of the run, y: YLabel) on which Shades are drawn as grey bands;
// a figure with Curves is latency against throughput (x: transactions per
// second achieved, y: milliseconds on a log scale) with Levels drawn across.
type Figure struct {
	Title  string
	YLabel string
	// Spectra: one line each (for example one per metric, or one per mode).
	Spectra []Spectrum
	// Series: one line each, over time.
	Series []TimeSeries
	// Shades are time windows to shade on a time figure (fault windows).
	Shades []Shade
	// Curves: one line each, a value against throughput (a rate sweep).
	Curves []Curve
	// Levels are horizontal reference lines on a curve figure (a floor).
	Levels []Level
}

// Curve is one line of a curve figure, a point per rate of the sweep.
type Curve struct {
	Label string
	// Key picks the line's colour (a mode; default Label).
	Key    string
	Dashed bool
	Points []CurveXY
}

// CurveXY is one point of a curve: throughput and value.
type CurveXY struct{ Tps, ValueMs float64 }

// Level is a horizontal line across a curve figure.
type Level struct {
	Label   string
	ValueMs float64
}

// Spectrum is one line of a percentile-spectrum plot.
type Spectrum struct {
	Label string
	// Key picks the line's colour (a mode or a metric; default Label).
	Key    string
	Points []SpectrumPoint
}

// SpectrumPoint is the latency at one percentile.
type SpectrumPoint struct {
	// Percentile in 0-100.
	Percentile float64
	ValueMs    float64
}

// TimeSeries is one line of a plot over time.
type TimeSeries struct {
	Label string
	// Key picks the line's colour (a mode or a metric; default Label).
	Key    string
	Points []TimePoint
}

// TimePoint is one value at an offset from the start of the run.
type TimePoint struct {
	Offset time.Duration
	Value  float64
}

// Shade is a window of a time figure drawn as a grey band, labelled.
type Shade struct {
	Label    string
	From, To time.Duration
}

// Figures holds each cell's figures, keyed by Cell.ID(), and each
// scenario's (the modes overlaid), keyed by ScenarioKey.
type Figures map[string][]Figure

// ScenarioKey is the Figures key of a scenario's own figures.
func ScenarioKey(scenario string) string { return "scenario:" + scenario }

// BenchFigures holds a bench run's figures per batch size.
type BenchFigures map[int][]Figure
