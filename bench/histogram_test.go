package bench

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHistogramPercentilesInMilliseconds(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	p := h.Percentiles()
	if p.Count != 1000 {
		t.Fatalf("count %d, want 1000", p.Count)
	}
	// 3 significant digits: every value within 0.1%.
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", p.P50, 500}, {"p90", p.P90, 900}, {"p99", p.P99, 990}, {"p99.9", p.P999, 999}, {"max", p.Max, 1000}, {"mean", p.Mean, 500.5}} {
		if c.got < c.want*0.999 || c.got > c.want*1.001 {
			t.Errorf("%s = %v ms, want about %v", c.name, c.got, c.want)
		}
	}
}

func TestHistogramClampsOutOfRange(t *testing.T) {
	h := NewHistogram()
	h.Record(-time.Second)
	h.Record(2 * time.Hour)
	if h.Count() != 2 {
		t.Fatalf("count %d, want 2: out-of-range values must be clamped, not lost", h.Count())
	}
	if h.Max() < 59*time.Minute {
		t.Fatalf("max %v, want clamped to about an hour", h.Max())
	}
}

func TestHistogramEncodeDecodeMerge(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	for i := 0; i < 100; i++ {
		a.Record(time.Millisecond)
		b.Record(100 * time.Millisecond)
	}
	enc, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	// Standard base64 V2 compressed: the "HISTF" prefix every HdrHistogram
	// implementation writes and reads.
	if !strings.HasPrefix(enc, "HISTF") {
		t.Fatalf("encoding %.20q is not base64 V2 compressed", enc)
	}
	back, err := DecodeHistogram(enc)
	if err != nil {
		t.Fatal(err)
	}
	if back.Percentiles() != a.Percentiles() {
		t.Fatalf("round trip changed the histogram: %+v vs %+v", back.Percentiles(), a.Percentiles())
	}
	back.Merge(b)
	if back.Count() != 200 || back.Quantile(75) < 99*time.Millisecond {
		t.Fatalf("merge: count %d p75 %v", back.Count(), back.Quantile(75))
	}
	if _, err := DecodeHistogram("not base64!"); err == nil {
		t.Fatal("decoding garbage must fail")
	}
	if _, err := DecodeHistogram("AAAA"); err == nil {
		t.Fatal("decoding a non-histogram must fail")
	}
}

// The .hgrm layout other HdrHistogram tools parse: header, blank line, rows of
// four columns (the last row three), then the three footer lines.
func TestWriteHGRMFormat(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 10000; i++ {
		h.Record(time.Duration(i) * 10 * time.Microsecond) // 0.01 ms .. 100 ms
	}
	var buf bytes.Buffer
	if err := h.WriteHGRM(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if got, want := lines[0], "       Value     Percentile TotalCount 1/(1-Percentile)"; got != want {
		t.Fatalf("header %q, want %q", got, want)
	}
	if lines[1] != "" {
		t.Fatalf("line 2 %q, want blank", lines[1])
	}
	row := regexp.MustCompile(`^ +\d+\.\d{3} \d\.\d{12} +\d+ +\d+\.\d{2}$`)
	last := regexp.MustCompile(`^ +\d+\.\d{3} 1\.000000000000 +\d+$`)
	n := len(lines)
	body := lines[2 : n-3]
	if len(body) < 20 {
		t.Fatalf("only %d rows", len(body))
	}
	prevCount := int64(-1)
	for i, l := range body {
		re := row
		if i == len(body)-1 {
			re = last
		}
		if !re.MatchString(l) {
			t.Fatalf("row %d %q does not match %v", i, l, re)
		}
		count, _ := strconv.ParseInt(strings.Fields(l)[2], 10, 64)
		if count < prevCount {
			t.Fatalf("row %d: TotalCount goes down", i)
		}
		prevCount = count
	}
	if !strings.HasSuffix(body[len(body)-1], " 10000") {
		t.Fatalf("last row %q must hold the total count", body[len(body)-1])
	}
	footer := []*regexp.Regexp{
		regexp.MustCompile(`^#\[Mean    = +\d+\.\d{3}, StdDeviation   = +\d+\.\d{3}\]$`),
		regexp.MustCompile(`^#\[Max     = +100\.\d{3}, Total count    = +10000\]$`),
		regexp.MustCompile(`^#\[Buckets = +\d+, SubBuckets     = +2048\]$`),
	}
	for i, re := range footer {
		if !re.MatchString(lines[n-3+i]) {
			t.Fatalf("footer line %q does not match %v", lines[n-3+i], re)
		}
	}
	// Values are milliseconds: the median row sits near 50 ms.
	for _, l := range body {
		f := strings.Fields(l)
		if f[1] == "0.500000000000" {
			v, _ := strconv.ParseFloat(f[0], 64)
			if v < 49.9 || v > 50.1 {
				t.Fatalf("median row %q, want about 50 ms", l)
			}
		}
	}
}

func TestHistogramSpectrum(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	s := h.Spectrum("x")
	if s.Label != "x" || len(s.Points) < 10 {
		t.Fatalf("spectrum %+v", s)
	}
	lastPoint := s.Points[len(s.Points)-1]
	if lastPoint.Percentile != 100 || lastPoint.ValueMs < 99.9 {
		t.Fatalf("last point %+v, want the max at 100%%", lastPoint)
	}
	if len(NewHistogram().Spectrum("empty").Points) != 0 {
		t.Fatal("an empty histogram has no spectrum")
	}
}
