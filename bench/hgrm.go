package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"io"
	"strings"
	"sync"
	"time"
)

// WriteHGRM writes the histogram as an HdrHistogram percentile distribution
// (.hgrm), values in milliseconds, in the layout of the Java implementation's
// outputPercentileDistribution, which HdrHistogram's plotter and other tools
// read:
//
//	       Value     Percentile TotalCount 1/(1-Percentile)
//
//	       1.024 0.000000000000          1           1.00
//	...
//	#[Mean    =        1.234, StdDeviation   =        0.567]
//	#[Max     =        7.000, Total count    =          100]
//	#[Buckets =           23, SubBuckets     =         2048]
//
// hdrhistogram-go's own PercentilesPrint differs (tab-separated header, "inf"
// on the last line), hence this writer.
func (h *Histogram) WriteHGRM(w io.Writer) error {
	const scale = float64(time.Millisecond)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")
	for _, b := range h.h.CumulativeDistributionWithTicks(5) {
		v := float64(b.ValueAt) / scale
		p := b.Quantile / 100
		if b.Quantile >= 100 {
			// Java leaves 1/(1-p) off the last line: it is infinite.
			fmt.Fprintf(bw, "%12.3f %2.12f %10d\n", v, 1.0, b.Count)
			continue
		}
		fmt.Fprintf(bw, "%12.3f %2.12f %10d %14.2f\n", v, p, b.Count, 1/(1-p))
	}
	fmt.Fprintf(bw, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", h.h.Mean()/scale, h.h.StdDev()/scale)
	fmt.Fprintf(bw, "#[Max     = %12.3f, Total count    = %12d]\n", float64(h.h.Max())/scale, h.h.TotalCount())
	fmt.Fprint(bw, bucketsFooter())
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write hgrm: %w", err)
	}
	return nil
}

// WriteHGRMFile writes the .hgrm file atomically.
func (h *Histogram) WriteHGRMFile(path string) error {
	var buf bytes.Buffer
	if err := h.WriteHGRM(&buf); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes())
}

var (
	bucketsLineOnce sync.Once
	bucketsLine     string
)

// bucketsFooter is the "#[Buckets = ..., SubBuckets = ...]" line. hdrhistogram-go
// keeps the bucket counts private but prints them in PercentilesPrint's footer;
// every histogram here has the same geometry, so one empty histogram's footer
// serves all.
func bucketsFooter() string {
	bucketsLineOnce.Do(func() {
		var buf bytes.Buffer
		if _, err := NewHistogram().h.PercentilesPrint(&buf, 5, 1); err == nil {
			for _, line := range strings.Split(buf.String(), "\n") {
				if strings.HasPrefix(line, "#[Buckets") {
					bucketsLine = line + "\n"
				}
			}
		}
	})
	return bucketsLine
}
