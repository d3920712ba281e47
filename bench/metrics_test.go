package bench

import (
	"regexp"
	"slices"
	"testing"
)

// TestMetricsTable: every metric is named once, snake_case, described, and
// recorded somewhere; a latency's name says its unit.
func TestMetricsTable(t *testing.T) {
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, m := range Metrics {
		if seen[m.Name] {
			t.Errorf("%s listed twice", m.Name)
		}
		seen[m.Name] = true
		if !snake.MatchString(m.Name) || m.About == "" || m.Where == 0 {
			t.Errorf("%+v: want a snake_case name, an About and a Where", m)
		}
		if m.Kind == Latency && !regexp.MustCompile(`_(duration|latency)$`).MatchString(m.Name) {
			t.Errorf("latency %s: its name should say it is a duration or a latency", m.Name)
		}
	}
	if got := MetricNames(Latency, InRun); !slices.Equal(got, []string{TxnTotalDuration, TxnCommitDuration, ShareAckDuration, TxnAcksDuration,
		TxnAcksPrepareDuration, AddShareAcksToTxnDuration, TxnShareAcknowledgeDuration}) {
		t.Errorf("run latencies %v", got)
	}
	if slices.Contains(MetricNames(Counter, InRun), Records) {
		t.Error("a bench-only counter listed for run")
	}
}
