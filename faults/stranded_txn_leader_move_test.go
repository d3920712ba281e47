package faults

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// The partitions moved are the stranded transaction's input and ledger
// partitions, in order; its outputs (and other cells' topics) are not.
func TestStagedPartitions(t *testing.T) {
	topo := ctp.NewTopology("sc-st", 4, 3, 2)
	txn := kadm.DescribedTransaction{Topics: kadm.TopicsSet{
		topo.InputTopic:  {2: {}, 0: {}},
		topo.OutputTopic: {1: {}},
		topo.LedgerTopic: {1: {}},
		"other-in":       {0: {}},
	}}
	var got []string
	for _, s := range stagedPartitions(txn, topo) {
		got = append(got, s.what)
	}
	if want := []string{"input/0", "input/2", "ledger/1"}; !slices.Equal(got, want) {
		t.Errorf("staged %v, want %v", got, want)
	}
	if s := stagedPartitions(kadm.DescribedTransaction{Topics: kadm.TopicsSet{topo.OutputTopic: {0: {}}}}, topo); len(s) != 0 {
		t.Errorf("a transaction of outputs only has staged acks at %v", s)
	}
}

// A transaction is the same open one only while its producer id, epoch and
// start stay and it is Ongoing: the timeout's abort (PrepareAbort,
// CompleteAbort, a bumped epoch) or a newer transaction ends it.
func TestSameOpenTxn(t *testing.T) {
	open := kadm.DescribedTransaction{State: "Ongoing", ProducerID: 7, ProducerEpoch: 3, StartTimestamp: 1000}
	for _, tc := range []struct {
		now  kadm.DescribedTransaction
		same bool
	}{
		{open, true},
		{kadm.DescribedTransaction{State: "PrepareAbort", ProducerID: 7, ProducerEpoch: 3, StartTimestamp: 1000}, false},
		{kadm.DescribedTransaction{State: "CompleteAbort", ProducerID: 7, ProducerEpoch: 4, StartTimestamp: 1000}, false},
		{kadm.DescribedTransaction{State: "Ongoing", ProducerID: 7, ProducerEpoch: 4, StartTimestamp: 5000}, false},
		{kadm.DescribedTransaction{State: "Ongoing", ProducerID: 7, ProducerEpoch: 3, StartTimestamp: 5000}, false},
	} {
		if got := sameOpenTxn(tc.now, open); got != tc.same {
			t.Errorf("%+v: same %v, want %v", tc.now, got, tc.same)
		}
	}
}
