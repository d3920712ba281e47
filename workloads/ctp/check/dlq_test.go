package check_test

import (
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// dlqCell is dlq-poison in explicit mode: five inputs, r-000002 poison
// (every 5th from 2), released at each of its ten deliveries and so
// archived; the others processed once, except skip (-1: none), whose output
// never comes although the group is done with it. letters are the dead
// letters' input offsets.
func dlqCell(skip int, letters ...int64) *checkCell {
	c := newCheckCell(ctp.Explicit, "", 5)
	c.obs.Poison = &ctp.Poison{Every: 5, Offset: 2}
	c.obs.DLQTopic, c.obs.InputTopic = "dlq.cell", checkInputTopic
	w := c.worker("w1.1")
	for _, i := range []int{0, 1, 3, 4} {
		if i != skip {
			w.process(1, i)
		} else {
			w.ack(history.AckAccept, w.poll(1, i))
		}
	}
	for d := int32(1); d <= 10; d++ {
		w.ack(history.AckRelease, w.poll(d, 2))
	}
	for i, off := range letters {
		c.obs.DLQ = append(c.obs.DLQ, ctp.DLQRecord{Key: ctp.InputID(int(off)), Topic: checkInputTopic, Partition: 0, Offset: off,
			DeliveryCount: "10", At: int64(i)})
	}
	return c
}

// TestCheckDLQ: the poison record archived and dead-lettered once passes;
// a dead letter missing, twice, or for a record that was not archived, and
// a lost record that was not poison, are each named.
func TestCheckDLQ(t *testing.T) {
	allowed := checkAllowed(t, ctp.Explicit, "dlq-poison")
	poisonLost := map[string]int{verdict.AnomalyLost: 1, verdict.AnomalyAckWithoutOutput: 1, verdict.AnomalyArchived: 1}
	with := func(extra map[string]int) map[string]int {
		m := map[string]int{}
		for k, v := range poisonLost {
			m[k] = v
		}
		for k, v := range extra {
			m[k] += v
		}
		return m
	}
	cases := []struct {
		name string
		c    *checkCell
		want verdict.Verdict
		an   map[string]int
	}{
		{"exactly-once", dlqCell(-1, 2), verdict.Pass, poisonLost},
		{"missing", dlqCell(-1), verdict.Anomaly, with(map[string]int{verdict.AnomalyDLQMissing: 1})},
		{"twice", dlqCell(-1, 2, 2), verdict.Anomaly, with(map[string]int{verdict.AnomalyDLQDuplicate: 1})},
		{"not-archived", dlqCell(-1, 2, 4), verdict.Anomaly, with(map[string]int{verdict.AnomalyDLQExtra: 1})},
		{"lost-not-poison", dlqCell(3, 2), verdict.Anomaly, with(map[string]int{verdict.AnomalyLostNotPoison: 1,
			verdict.AnomalyLostUnexplained: 1, verdict.AnomalyAckWithoutOutput: 1})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkWant(t, check.Run(tc.c.obs, allowed), tc.want, tc.an)
		})
	}
}
