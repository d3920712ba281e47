package bench

import (
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Threshold is a pass/fail criterion written as data, k6 style:
//
//	txn_commit_duration: p(99)<250ms
//	txn_total_duration{mode:transactional}: p(50)<=40ms
//	e2e_latency: avg<1s
//	dropped_iterations: count<10
//	transactions: rate>=100
//
// Statistics: p(N) (N in 0-100], med (= p(50)), avg, min, max for latencies,
// with a duration limit (ns, us, µs, ms, s, m, h; a bare number is
// milliseconds, as in k6); count (values recorded, or a counter's total) and
// rate (count per second over the recorded span) with a plain number.
// Operators: < <= > >= == !=. Tags in braces select where it applies (see
// Matches); the caller decides what mode or batch a snapshot is.
type Threshold struct {
	// Text is the threshold as written, for reports.
	Text   string
	Metric string
	Tags   map[string]string
	// Stat is "p", "med", "avg", "min", "max", "count" or "rate".
	Stat string
	// Percentile is N of p(N), 0-100.
	Percentile float64
	Op         string
	// Limit: milliseconds for latency statistics, a plain number otherwise.
	Limit float64
}

// Thresholds are several thresholds, evaluated together.
type Thresholds []Threshold

var (
	thresholdRe = regexp.MustCompile(`^\s*([^\s:{]+)\s*(\{[^}]*\})?\s*:\s*(.*?)\s*$`)
	metricRe    = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	exprRe      = regexp.MustCompile(`^([a-z]+)\s*(\(\s*([^)]*?)\s*\))?\s*(<=|>=|==|!=|<|>)\s*(.+?)$`)
	limitRe     = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*([a-zµ]*)$`)
)

// ParseThreshold parses one threshold; the error quotes the text and names the
// part that is wrong.
func ParseThreshold(text string) (Threshold, error) {
	fail := func(format string, args ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("parse threshold %q: %s", text, fmt.Sprintf(format, args...))
	}
	m := thresholdRe.FindStringSubmatch(text)
	if m == nil {
		return fail(`want "metric: stat<limit", such as "txn_commit_duration: p(99)<250ms"`)
	}
	t := Threshold{Text: strings.TrimSpace(text), Metric: m[1]}
	if !metricRe.MatchString(t.Metric) {
		return fail("metric name %q is not snake_case (like txn_commit_duration)", t.Metric)
	}
	if m[2] != "" {
		tags, err := parseTags(m[2])
		if err != nil {
			return fail("%v", err)
		}
		t.Tags = tags
	}
	expr := m[3]
	if expr == "" {
		return fail("no condition after %q", t.Metric+":")
	}
	e := exprRe.FindStringSubmatch(expr)
	if e == nil {
		return fail("condition %q: want stat, operator, limit (such as p(99)<250ms or count<10)", expr)
	}
	stat, hasArg, arg, op, limit := e[1], e[2] != "", e[3], e[4], e[5]
	t.Op = op
	switch stat {
	case "p":
		if !hasArg {
			return fail("p needs a percentile in parentheses, such as p(99)")
		}
		q, err := strconv.ParseFloat(arg, 64)
		if err != nil || q <= 0 || q > 100 {
			return fail("percentile %q: want a number in (0, 100]", arg)
		}
		t.Stat, t.Percentile = "p", q
	case "med", "avg", "min", "max", "count", "rate":
		if hasArg {
			return fail("%s takes no argument, got %q", stat, e[2])
		}
		t.Stat = stat
		if stat == "med" {
			t.Percentile = 50
		}
	default:
		return fail("unknown statistic %q (want p(N), med, avg, min, max, count or rate)", stat)
	}
	lm := limitRe.FindStringSubmatch(limit)
	if lm == nil {
		return fail("limit %q is not a number with an optional unit", limit)
	}
	num, unit := lm[1], lm[2]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return fail("limit %q: %v", limit, err)
	}
	if t.latencyStat() {
		if unit == "" {
			t.Limit = v // milliseconds, as in k6
		} else {
			d, err := time.ParseDuration(num + unit)
			if err != nil {
				return fail("limit %q: unknown unit %q (want ns, us, µs, ms, s, m or h)", limit, unit)
			}
			t.Limit = float64(d) / float64(time.Millisecond)
		}
	} else {
		if unit != "" {
			return fail("%s takes a plain number, got %q", stat, limit)
		}
		t.Limit = v
	}
	return t, nil
}

func parseTags(braced string) (map[string]string, error) {
	inner := strings.TrimSpace(braced[1 : len(braced)-1])
	if inner == "" {
		return nil, fmt.Errorf("empty tag selector %q", braced)
	}
	tags := map[string]string{}
	for _, kv := range strings.Split(inner, ",") {
		k, v, ok := strings.Cut(kv, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("tag %q: want key:value", strings.TrimSpace(kv))
		}
		tags[k] = v
	}
	return tags, nil
}

// ParseThresholds parses each text; the error names every bad one.
func ParseThresholds(texts []string) (Thresholds, error) {
	var out Thresholds
	var errs []error
	for _, s := range texts {
		t, err := ParseThreshold(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}

func (t Threshold) latencyStat() bool {
	switch t.Stat {
	case "p", "med", "avg", "min", "max":
		return true
	}
	return false
}

// Matches says whether the threshold applies where tags hold (for example
// {"mode": "transactional", "batch": "10"}): every tag it names must be there
// with the same value. A threshold without tags applies everywhere.
func (t Threshold) Matches(tags map[string]string) bool {
	for k, v := range t.Tags {
		if tags[k] != v {
			return false
		}
	}
	return true
}

// Evaluate judges the threshold on a snapshot. A metric that was never
// recorded fails (a typo must not pass silently).
func (t Threshold) Evaluate(s *Snapshot) result.ThresholdResult {
	res := result.ThresholdResult{Threshold: t.Text, Metric: t.Metric}
	switch {
	case t.latencyStat():
		res.Unit = "ms"
		if !s.HasLatency(t.Metric) {
			return t.noData(res, "no latency "+t.Metric+" recorded")
		}
		h := s.Histogram(t.Metric)
		if h.Count() == 0 {
			return t.noData(res, "no values of "+t.Metric)
		}
		var d time.Duration
		switch t.Stat {
		case "p", "med":
			d = h.Quantile(t.Percentile)
		case "avg":
			d = h.Mean()
		case "min":
			d = h.Min()
		case "max":
			d = h.Max()
		}
		return t.judge(res, ms(d))
	default:
		n, ok := s.Counter(t.Metric)
		if !ok && s.HasLatency(t.Metric) {
			n, ok = s.Histogram(t.Metric).Count(), true
		}
		if !ok {
			return t.noData(res, "no counter "+t.Metric+" recorded")
		}
		if t.Stat == "count" {
			return t.judge(res, float64(n))
		}
		res.Unit = "/s"
		start, end := s.Span()
		secs := end.Sub(start).Seconds()
		if secs <= 0 {
			return t.noData(res, "no recorded span to take a rate over")
		}
		return t.judge(res, round3(float64(n)/secs))
	}
}

// EvaluateSummary judges the threshold on summaries alone (a result.json's
// Latency and counters, no histograms): p(50), p(90), p(99), p(99.9), med, avg,
// max and count are available; others fail with the reason.
func (t Threshold) EvaluateSummary(latency map[string]result.Percentiles, counters map[string]int64) result.ThresholdResult {
	res := result.ThresholdResult{Threshold: t.Text, Metric: t.Metric}
	if t.latencyStat() {
		res.Unit = "ms"
		p, ok := latency[t.Metric]
		if !ok || p.Count == 0 {
			return t.noData(res, "no values of "+t.Metric)
		}
		name := t.Stat
		switch t.Stat {
		case "p", "med":
			name = "p" + strconv.FormatFloat(t.Percentile, 'f', -1, 64)
		case "avg":
			name = "mean"
		}
		v, ok := PercentileValue(p, name)
		if !ok {
			return t.noData(res, t.Stat+" of "+t.Metric+" needs the histogram, not its summary")
		}
		return t.judge(res, v)
	}
	if t.Stat != "count" {
		return t.noData(res, "rate needs the recorded span, not a summary")
	}
	if n, ok := counters[t.Metric]; ok {
		return t.judge(res, float64(n))
	}
	if p, ok := latency[t.Metric]; ok {
		return t.judge(res, float64(p.Count))
	}
	return t.noData(res, "no counter "+t.Metric+" recorded")
}

func (t Threshold) noData(res result.ThresholdResult, why string) result.ThresholdResult {
	res.Pass = false
	res.Reason = why
	return res
}

func (t Threshold) judge(res result.ThresholdResult, observed float64) result.ThresholdResult {
	res.Observed = observed
	switch t.Op {
	case "<":
		res.Pass = observed < t.Limit
	case "<=":
		res.Pass = observed <= t.Limit
	case ">":
		res.Pass = observed > t.Limit
	case ">=":
		res.Pass = observed >= t.Limit
	case "==":
		res.Pass = observed == t.Limit
	case "!=":
		res.Pass = observed != t.Limit
	}
	if !res.Pass {
		res.Reason = fmt.Sprintf("observed %g%s, want %s %g%s", observed, res.Unit, t.Op, t.Limit, res.Unit)
	}
	return res
}

// Evaluate judges every threshold that matches tags on s; scope names where
// (for example "transactional batch=10") in each result.
func (ts Thresholds) Evaluate(s *Snapshot, tags map[string]string, scope string) []result.ThresholdResult {
	var out []result.ThresholdResult
	for _, t := range ts {
		if !t.Matches(tags) {
			continue
		}
		r := t.Evaluate(s)
		r.Scope = scope
		out = append(out, r)
	}
	return out
}

// AllPass says whether every result passed (true for none).
func AllPass(results []result.ThresholdResult) bool {
	for _, r := range results {
		if !r.Pass {
			return false
		}
	}
	return true
}
