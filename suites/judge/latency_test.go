package judge

import (
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestLatencyByRequest: a native txn-acks event's request times become
// their own histograms; a ledger one (no such attributes) and a failed one
// add none.
func TestLatencyByRequest(t *testing.T) {
	ms := int64(time.Millisecond)
	h := history.History{
		{Type: history.OK, F: history.FTxnAcks, DurNS: 12 * ms, Attrs: map[string]string{
			ctp.AttrAcksPrepareNS: "1000000", ctp.AttrAddShareAcksToTxnNS: "4000000", ctp.AttrTxnShareAcknowledgeNS: "6000000"}},
		{Type: history.OK, F: history.FTxnAcks, DurNS: 3 * ms},
		{Type: history.Fail, F: history.FTxnAcks, Attrs: map[string]string{ctp.AttrAddShareAcksToTxnNS: "900000000"}},
	}
	hs := Latency(h)
	if n := hs[bench.TxnAcksDuration].Count(); n != 2 {
		t.Errorf("txn_acks_duration: %d values, want both OK events", n)
	}
	for metric, want := range map[string]time.Duration{bench.TxnAcksPrepareDuration: time.Millisecond,
		bench.AddShareAcksToTxnDuration: 4 * time.Millisecond, bench.TxnShareAcknowledgeDuration: 6 * time.Millisecond} {
		got := hs[metric]
		if got == nil || got.Count() != 1 || got.Max() < want || got.Max() > want+want/100 {
			t.Errorf("%s: %v, want one value of %s", metric, got, want)
		}
	}
}
