package bench

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// DefaultAlpha is the significance level of comparisons.
const DefaultAlpha = 0.05

// Comparison is the result of comparing a candidate sample with a baseline
// sample by the Mann-Whitney U test (benchmath.AssumeNothing: no assumption
// about the distribution, which latency percentiles do not follow anyway).
type Comparison struct {
	BaselineMedian  float64
	CandidateMedian float64
	// Ratio is CandidateMedian / BaselineMedian; 0 when undefined (a baseline
	// median of 0 or an empty side). No NaN: these values go into JSON.
	Ratio float64
	// P is the two-sided p-value; N1 and N2 the sample sizes.
	P      float64
	N1, N2 int
	Alpha  float64
	// Significant is P < Alpha: the samples differ in location.
	Significant bool
	// TooFewSamples: the samples are so small that even completely separated
	// ones could not reach Alpha (U test with n=3 per side: p >= 0.1), so "no
	// significant difference" says nothing.
	TooFewSamples bool
	// Warnings are benchmath's, in words ("need >= 4 samples to detect a
	// difference at alpha level 0.05").
	Warnings []string
}

// Compare tests whether candidate differs from baseline. alpha 0 means
// DefaultAlpha. The inputs are not modified.
func Compare(baseline, candidate []float64, alpha float64) Comparison {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	// NewSample sorts in place: give it copies.
	s1 := benchmath.NewSample(slices.Clone(baseline), th)
	s2 := benchmath.NewSample(slices.Clone(candidate), th)
	c := Comparison{
		BaselineMedian:  median(s1.Values),
		CandidateMedian: median(s2.Values),
		N1:              len(baseline),
		N2:              len(candidate),
		Alpha:           alpha,
		P:               1,
	}
	if c.BaselineMedian != 0 {
		c.Ratio = c.CandidateMedian / c.BaselineMedian
	}
	if len(baseline) == 0 || len(candidate) == 0 {
		c.TooFewSamples = true
		c.Warnings = append(c.Warnings, "no samples on one side")
		return c
	}
	res := benchmath.AssumeNothing.Compare(s1, s2)
	c.P = res.P
	c.Significant = res.P < alpha
	for _, w := range res.Warnings {
		c.Warnings = append(c.Warnings, w.Error())
	}
	// benchmath warns only when P > alpha and both sides are below the minimum
	// size; ask the question directly so the flag never depends on the data.
	if !c.Significant && minUTestP(len(baseline), len(candidate)) >= alpha {
		c.TooFewSamples = true
		if len(res.Warnings) == 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("n=%d+%d is too small to ever reach alpha %v", c.N1, c.N2, alpha))
		}
	}
	return c
}

// Words says the comparison for people, naming the candidate.
func (c Comparison) Words(candidate, baseline string) string {
	switch {
	case c.TooFewSamples:
		return fmt.Sprintf("too few repeats to tell (n=%d+%d; the U test needs %d per side to reach alpha %v)",
			c.N1, c.N2, MinRepeats(c.Alpha), c.Alpha)
	case !c.Significant:
		return fmt.Sprintf("no significant difference (%s)", FormatP(c.P))
	case c.Ratio == 0:
		return fmt.Sprintf("%s differs from %s (%s)", candidate, baseline, FormatP(c.P))
	case c.Ratio >= 1:
		return fmt.Sprintf("%s slower than %s: %.2fx (%s)", candidate, baseline, c.Ratio, FormatP(c.P))
	default:
		return fmt.Sprintf("%s faster than %s: %.2fx (%s)", candidate, baseline, c.Ratio, FormatP(c.P))
	}
}

// FormatP prints a p-value for people: "p=0.042", "p<0.001".
func FormatP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// MinRepeats is the smallest number of repeats per side with which a U test
// can reach alpha at all (4 at 0.05, 5 at 0.01): the --repeats to ask for.
func MinRepeats(alpha float64) int {
	n := 1
	for minUTestP(n, n) >= alpha && n < 100 {
		n++
	}
	return n
}

// minUTestP is the smallest two-sided p-value a U test can give for sample
// sizes n1 and n2 (the samples completely separated, no ties):
// 2 / C(n1+n2, n1).
func minUTestP(n1, n2 int) float64 {
	// log C(n1+n2, n1) via lgamma, exact enough for the sizes used here.
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	logC := lg(n1+n2) - lg(n1) - lg(n2)
	return math.Min(1, 2*math.Exp(-logC))
}

// median of sorted values; 0 when empty.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
