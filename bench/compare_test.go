package bench

import (
	"github.com/sharechaos/sharechaos/result"
	"strings"
	"testing"
)

func TestCompareEqualSamplesNotSignificant(t *testing.T) {
	a := []float64{10.1, 10.4, 9.8, 10.0, 10.3, 9.9, 10.2, 10.5, 9.7, 10.0}
	b := []float64{10.0, 10.2, 9.9, 10.4, 9.8, 10.1, 10.3, 9.7, 10.5, 10.0}
	c := Compare(a, b, 0)
	t.Logf("%+v: %s", c, c.Words("transactional", "explicit"))
	if c.Significant || c.P < 0.5 || c.TooFewSamples {
		t.Fatalf("same distribution judged different: %+v", c)
	}
	if !strings.HasPrefix(c.Words("transactional", "explicit"), "no significant difference") {
		t.Fatalf("words %q", c.Words("transactional", "explicit"))
	}
	// Compare must not reorder the caller's slices.
	if a[0] != 10.1 || b[0] != 10.0 {
		t.Fatal("Compare sorted its inputs")
	}
}

func TestCompareShiftedSamplesSignificant(t *testing.T) {
	base := []float64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	cand := []float64{20, 22, 24, 26, 28, 30, 32, 34, 36, 38}
	c := Compare(base, cand, 0.05)
	t.Logf("%+v: %s", c, c.Words("transactional", "explicit"))
	if !c.Significant || c.P >= 0.001 {
		t.Fatalf("clearly shifted samples judged alike: %+v", c)
	}
	if c.BaselineMedian != 14.5 || c.CandidateMedian != 29 || c.Ratio != 2 {
		t.Fatalf("medians %v %v ratio %v", c.BaselineMedian, c.CandidateMedian, c.Ratio)
	}
	if w := c.Words("transactional", "explicit"); !strings.Contains(w, "transactional slower than explicit: 2.00x") {
		t.Fatalf("words %q", w)
	}
	if w := Compare(cand, base, 0).Words("implicit", "explicit"); !strings.Contains(w, "faster") {
		t.Fatalf("words %q", w)
	}
}

// With 3 repeats a side the U test cannot go below p = 0.1: "no significant
// difference" would mislead, so the comparison says n is too small.
func TestCompareTooFewSamples(t *testing.T) {
	c := Compare([]float64{1, 2, 3}, []float64{100, 200, 300}, 0.05)
	t.Logf("%+v: %s", c, c.Words("transactional", "explicit"))
	if c.Significant || !c.TooFewSamples || len(c.Warnings) == 0 {
		t.Fatalf("want too few samples: %+v", c)
	}
	if !strings.HasPrefix(c.Words("transactional", "explicit"), "too few repeats") {
		t.Fatalf("words %q", c.Words("t", "e"))
	}
	// 4 a side can reach 0.029 < 0.05: not "too few" when completely separated.
	if c := Compare([]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 0.05); !c.Significant || c.TooFewSamples {
		t.Fatalf("n=4 separated: %+v", c)
	}
	if c := Compare(nil, []float64{1}, 0); !c.TooFewSamples || c.Ratio != 0 {
		t.Fatalf("empty side: %+v", c)
	}
}

func TestMinRepeats(t *testing.T) {
	if MinRepeats(0.05) != 4 || MinRepeats(0.01) != 5 {
		t.Fatalf("MinRepeats: %d at 0.05, %d at 0.01", MinRepeats(0.05), MinRepeats(0.01))
	}
}

func TestMinUTestP(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{3, 0.1}, {4, 0.02857142857142857}, {5, 0.007936507936507936}} {
		if got := minUTestP(c.n, c.n); got < c.want*0.9999 || got > c.want*1.0001 {
			t.Errorf("n=%d: %v, want %v (benchmath's table)", c.n, got, c.want)
		}
	}
}

func TestCompareModesTable(t *testing.T) {
	var runs []result.BenchRun
	lat := func(p50, p99 float64) map[string]result.Percentiles {
		return map[string]result.Percentiles{TxnTotalDuration: {Count: 100, P50: p50, P99: p99}}
	}
	// Interleaved repeats: explicit ~10 ms, transactional ~20 ms, implicit ~10 ms.
	for rep := 0; rep < 5; rep++ {
		f := float64(rep) * 0.1
		for _, batch := range []int{1, 10} {
			runs = append(runs,
				result.BenchRun{Mode: "transactional", Realization: "ledger", Batch: batch, Repeat: rep, Latency: lat(20+f, 40+f)},
				result.BenchRun{Mode: "explicit", Batch: batch, Repeat: rep, Latency: lat(10+f, 20+f)},
				result.BenchRun{Mode: "implicit", Batch: batch, Repeat: rep, Latency: lat(10.05+f, 20.05+f)},
			)
		}
	}
	runs = append(runs, result.BenchRun{Mode: "explicit", Batch: 10, Repeat: 5, Error: "worker died"})
	rows := CompareModes(runs, CompareOptions{})
	if len(rows) != 2*2*2 { // batches x percentiles x candidates
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	first := rows[0]
	if first.Batch != 1 || first.Percentile != "p50" || first.Candidate != "transactional/ledger" || first.Baseline != "explicit" {
		t.Fatalf("first row %+v", first)
	}
	if !first.Significant || first.Ratio < 1.9 || first.N1 != 5 || len(first.BaselineMs) != 5 {
		t.Fatalf("transactional vs explicit %+v", first)
	}
	impl := rows[1]
	if impl.Candidate != "implicit" || impl.Significant {
		t.Fatalf("implicit vs explicit (overlapping) %+v", impl)
	}
	var sawSkip bool
	for _, r := range rows {
		if r.Batch == 10 {
			for _, w := range r.Warnings {
				sawSkip = sawSkip || strings.Contains(w, "worker died")
			}
		}
	}
	if !sawSkip {
		t.Fatal("a failed repeat must be named in the warnings")
	}
}
