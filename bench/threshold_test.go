package bench

import (
	"github.com/sharechaos/sharechaos/result"
	"strings"
	"testing"
	"time"
)

func TestParseThresholdGood(t *testing.T) {
	cases := []struct {
		text string
		want Threshold
	}{
		{"txn_commit_duration: p(99)<250ms", Threshold{Metric: "txn_commit_duration", Stat: "p", Percentile: 99, Op: "<", Limit: 250}},
		{"  txn_total_duration :p( 99.9 ) <= 1.5s ", Threshold{Metric: "txn_total_duration", Stat: "p", Percentile: 99.9, Op: "<=", Limit: 1500}},
		{"e2e_latency: avg<200", Threshold{Metric: "e2e_latency", Stat: "avg", Op: "<", Limit: 200}},
		{"e2e_latency: med<500us", Threshold{Metric: "e2e_latency", Stat: "med", Percentile: 50, Op: "<", Limit: 0.5}},
		{"share_ack_duration: max<2s", Threshold{Metric: "share_ack_duration", Stat: "max", Op: "<", Limit: 2000}},
		{"dropped_iterations: count<10", Threshold{Metric: "dropped_iterations", Stat: "count", Op: "<", Limit: 10}},
		{"transactions: rate>=100", Threshold{Metric: "transactions", Stat: "rate", Op: ">=", Limit: 100}},
		{"txn_commit_duration{mode:transactional, batch:10}: p(50)!=0", Threshold{Metric: "txn_commit_duration", Stat: "p", Percentile: 50, Op: "!=", Limit: 0,
			Tags: map[string]string{"mode": "transactional", "batch": "10"}}},
	}
	for _, c := range cases {
		got, err := ParseThreshold(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if got.Metric != c.want.Metric || got.Stat != c.want.Stat || got.Percentile != c.want.Percentile ||
			got.Op != c.want.Op || got.Limit != c.want.Limit || len(got.Tags) != len(c.want.Tags) {
			t.Errorf("%q: got %+v, want %+v", c.text, got, c.want)
		}
		for k, v := range c.want.Tags {
			if got.Tags[k] != v {
				t.Errorf("%q: tag %s=%q", c.text, k, got.Tags[k])
			}
		}
	}
}

func TestParseThresholdBad(t *testing.T) {
	cases := map[string]string{
		"p(99)<250ms":                       "want \"metric: stat<limit\"",
		"TxnCommit: p(99)<250ms":            `"TxnCommit" is not snake_case`,
		"txn_commit_duration:":              "no condition",
		"txn_commit_duration: p99<250ms":    `condition "p99<250ms"`,
		"txn_commit_duration: p(99)<<250ms": `limit "<250ms"`,
		"txn_commit_duration: p(101)<250ms": `percentile "101"`,
		"txn_commit_duration: p<250ms":      "p needs a percentile",
		"txn_commit_duration: avg(5)<250ms": "avg takes no argument",
		"txn_commit_duration: mean<250ms":   `unknown statistic "mean"`,
		"txn_commit_duration: p(99)<250qs":  `unknown unit "qs"`,
		"txn_commit_duration: p(99)<fast":   `limit "fast"`,
		"dropped_iterations: count<10ms":    "count takes a plain number",
		"txn_commit_duration{mode}: max<1s": `tag "mode"`,
		"txn_commit_duration: p(99)~250ms":  `condition "p(99)~250ms"`,
	}
	for text, want := range cases {
		_, err := ParseThreshold(text)
		if err == nil {
			t.Errorf("%q parsed; want an error", text)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), text) {
			t.Errorf("%q: error %q should quote the text and say %q", text, err, want)
		}
	}
	_, err := ParseThresholds([]string{"a: count<1", "bad", "also bad"})
	if err == nil || !strings.Contains(err.Error(), `"bad"`) || !strings.Contains(err.Error(), `"also bad"`) {
		t.Fatalf("ParseThresholds must name every bad text: %v", err)
	}
}

func TestThresholdEvaluate(t *testing.T) {
	r := NewRecorder(0)
	for i := 1; i <= 100; i++ {
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		r.Record(TxnCommitDuration, at, time.Duration(i)*time.Millisecond)
		r.Add(Transactions, at, 1)
	}
	r.Add(DroppedIterations, t0, 0)
	s := r.Snapshot()
	check := func(text string, pass bool) {
		t.Helper()
		th, err := ParseThreshold(text)
		if err != nil {
			t.Fatal(err)
		}
		res := th.Evaluate(s)
		if res.Pass != pass {
			t.Errorf("%q: pass %v (observed %v%s, %s), want %v", text, res.Pass, res.Observed, res.Unit, res.Reason, pass)
		}
		if res.Threshold != text || res.Metric != th.Metric {
			t.Errorf("result %+v does not name the threshold", res)
		}
	}
	check("txn_commit_duration: p(99)<250ms", true)
	check("txn_commit_duration: p(99)<50ms", false)
	check("txn_commit_duration: p(50)<=51ms", true)
	check("txn_commit_duration: med>60", false)
	check("txn_commit_duration: avg<60ms", true)
	check("txn_commit_duration: min<2ms", true)
	check("txn_commit_duration: max<1s", true)
	check("txn_commit_duration: max<0.09s", false)
	check("txn_commit_duration: count==100", true)
	check("dropped_iterations: count<10", true) // declared, 0
	check("transactions: count>=100", true)
	check("transactions: rate>50", true) // 100 over ~1 s
	check("transactions: rate>500", false)
	check("no_such_metric: count<10", false) // a typo must not pass
	check("no_such_duration: p(99)<1s", false)

	th, _ := ParseThreshold("txn_commit_duration{mode:transactional}: p(99)<1ms")
	if th.Matches(map[string]string{"mode": "explicit"}) || !th.Matches(map[string]string{"mode": "transactional", "batch": "1"}) {
		t.Fatal("tag matching")
	}
	ths, _ := ParseThresholds([]string{"txn_commit_duration{mode:transactional}: p(99)<1ms", "transactions: count>1"})
	res := ths.Evaluate(s, map[string]string{"mode": "explicit"}, "explicit batch=1")
	if len(res) != 1 || !AllPass(res) || res[0].Scope != "explicit batch=1" {
		t.Fatalf("explicit scope: %+v", res)
	}
	res = ths.Evaluate(s, map[string]string{"mode": "transactional"}, "")
	if len(res) != 2 || AllPass(res) {
		t.Fatalf("transactional scope: %+v", res)
	}
}

func TestThresholdEvaluateSummary(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	lat := map[string]result.Percentiles{TxnCommitDuration: h.Percentiles()}
	for text, pass := range map[string]bool{
		"txn_commit_duration: p(99)<250ms": true,
		"txn_commit_duration: p(90)<50ms":  false,
		"txn_commit_duration: avg<60ms":    true,
		"txn_commit_duration: p(95)<1s":    false, // not in a summary
		"txn_commit_duration: count==100":  true,
		"dropped_iterations: count<1":      true,
		"dropped_iterations: rate<1":       false, // needs the span
	} {
		th, err := ParseThreshold(text)
		if err != nil {
			t.Fatal(err)
		}
		if res := th.EvaluateSummary(lat, map[string]int64{DroppedIterations: 0}); res.Pass != pass {
			t.Errorf("%q: %+v, want pass %v", text, res, pass)
		}
	}
}
