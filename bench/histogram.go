// Package bench measures: HDR histograms of latencies without coordinated
// omission (Recorder, Snapshot, Histogram, .hgrm files), an open-loop load
// driver (Schedule, Driver), the statistics that compare the ack modes
// (Compare, CompareModes) and k6-style thresholds (ParseThreshold).
package bench

import (
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Every histogram of the suite has one geometry, so any two merge without loss
// and a worker's histograms can be added to the orchestrator's as they are.
// Values are nanoseconds; 1 µs is the finest step worth telling apart for Kafka
// round trips, one hour the longest stall worth keeping exact (longer ones are
// clamped to it); 3 significant digits keep every value within 0.1%.
const (
	lowestDiscernible = int64(time.Microsecond)
	highestTrackable  = int64(time.Hour)
	significantDigits = 3
)

// Histogram is a latency histogram (hdrhistogram-go underneath). It is not safe
// for concurrent use: a Recorder is.
type Histogram struct {
	h *hdr.Histogram
}

// NewHistogram returns an empty histogram with the suite's geometry.
func NewHistogram() *Histogram {
	return &Histogram{h: hdr.New(lowestDiscernible, highestTrackable, significantDigits)}
}

// clampValue maps a duration into the recordable range: negative durations (a
// clock step) become 0, stalls beyond an hour become an hour.
func clampValue(d time.Duration) int64 {
	v := int64(d)
	if v < 0 {
		return 0
	}
	if v > highestTrackable {
		return highestTrackable
	}
	return v
}

// Record adds one value.
func (h *Histogram) Record(d time.Duration) {
	// Cannot fail: the value is clamped into range and the count is 1.
	_ = h.h.RecordValue(clampValue(d))
}

// RecordCorrected adds one value and, when it exceeds expectedInterval, the
// values a recorder measuring every expectedInterval would have seen during the
// stall (d-interval, d-2*interval, ...): HdrHistogram's correction for
// coordinated omission. Use it for closed-loop measurements only; a latency
// already measured from its intended start is corrected and must use Record.
func (h *Histogram) RecordCorrected(d, expectedInterval time.Duration) {
	_ = h.h.RecordCorrectedValue(clampValue(d), int64(expectedInterval))
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Quantile returns the value at percentile q, given in 0-100 (99.9 is p99.9)
// like hdrhistogram-go's ValueAtQuantile, not 0-1.
func (h *Histogram) Quantile(q float64) time.Duration {
	return time.Duration(h.h.ValueAtQuantile(q))
}

// Max is the largest recorded value (within the histogram's precision).
func (h *Histogram) Max() time.Duration { return time.Duration(h.h.Max()) }

// Min is the smallest recorded value.
func (h *Histogram) Min() time.Duration { return time.Duration(h.h.Min()) }

// Mean is the arithmetic mean.
func (h *Histogram) Mean() time.Duration { return time.Duration(h.h.Mean()) }

// Merge adds every value of other to h.
func (h *Histogram) Merge(other *Histogram) {
	if other == nil {
		return
	}
	// Same geometry on both sides: nothing is dropped.
	h.h.Merge(other.h)
}

// Clone returns an independent copy.
func (h *Histogram) Clone() *Histogram { return &Histogram{h: h.h.Clone()} }

// Percentiles summarizes the histogram in milliseconds for result.json.
func (h *Histogram) Percentiles() result.Percentiles {
	if h.Count() == 0 {
		return result.Percentiles{}
	}
	return result.Percentiles{
		Count: h.Count(),
		P50:   ms(h.Quantile(50)),
		P90:   ms(h.Quantile(90)),
		P99:   ms(h.Quantile(99)),
		P999:  ms(h.Quantile(99.9)),
		Max:   ms(h.Max()),
		Mean:  round3(h.h.Mean() / float64(time.Millisecond)),
	}
}

// Spectrum is the histogram's percentile distribution (5 ticks per half
// distance, as .hgrm files have it), labelled, for report figures.
func (h *Histogram) Spectrum(label string) result.Spectrum {
	s := result.Spectrum{Label: label}
	if h.Count() == 0 {
		return s
	}
	for _, b := range h.h.CumulativeDistributionWithTicks(5) {
		s.Points = append(s.Points, result.SpectrumPoint{
			Percentile: b.Quantile,
			ValueMs:    float64(b.ValueAt) / float64(time.Millisecond),
		})
	}
	return s
}

// Encode returns the histogram in HdrHistogram's V2 compressed format as
// base64 text (hdrhistogram-go's Encode already base64-encodes): the form other
// HdrHistogram tools read, and a way to hand one histogram to another process.
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram reads what Encode wrote (or another tool's base64 V2
// histogram). A histogram with another geometry is copied into the suite's, so
// it merges with the rest.
func DecodeHistogram(s string) (*Histogram, error) {
	d, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	if d.LowestTrackableValue() == lowestDiscernible && d.HighestTrackableValue() == highestTrackable &&
		d.SignificantFigures() == significantDigits {
		return &Histogram{h: d}, nil
	}
	h := NewHistogram()
	if dropped := h.h.Merge(d); dropped > 0 {
		return nil, fmt.Errorf("decode histogram: %d values outside the range 1µs-1h", dropped)
	}
	return h, nil
}

// ms converts to float milliseconds with microsecond precision, the unit of
// result.json.
func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
