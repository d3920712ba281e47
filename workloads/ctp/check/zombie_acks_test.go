package check_test

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// staleEpochZombie is zombie-fenced-before-acks: w1.1 stops after its send,
// w1.2 starts with its transactional id and processes the batch, w1.1 is
// resumed and sends its acks into its transaction with the outcome given;
// refused, it aborts (fenced) and stops.
func staleEpochZombie(acks history.Type, errText string) *checkCell {
	c := newCheckCell(ctp.Transactional, "native", 5)
	w1 := c.worker("w1.1")
	recs := w1.poll(1, checkSpan(0, 5)...)
	txn := w1.begin()
	w1.send(recs)
	w1.faultAction("zombie-fenced-before-acks", ctp.PointAfterSend, ctp.ActionStop)
	c.worker("w1.2").process(2, checkSpan(0, 5)...)
	w1.resumed()
	w1.add(history.Event{Type: history.Invoke, F: history.FTxnAcks, Txn: txn, Records: recs})
	w1.add(history.Event{Type: acks, F: history.FTxnAcks, Txn: txn, Records: recs, Error: errText})
	w1.add(history.Event{Type: history.Invoke, F: history.FAbort, Txn: txn})
	w1.add(history.Event{Type: history.Info, F: history.FAbort, Txn: txn, Error: "PRODUCER_FENCED"})
	w1.stop("abort txn 1: fenced")
	return c
}

// Must pass: the zombie's acks were refused as fenced. Must fail: they were
// accepted, in a cell whose counts are otherwise clean.
func TestZombieAcks(t *testing.T) {
	allowed := checkAllowed(t, ctp.Transactional, "zombie-fenced-before-acks")
	t.Run("refused", func(t *testing.T) {
		res := check.Run(staleEpochZombie(history.Fail, "add share acks to txn: PRODUCER_FENCED").obs, allowed)
		checkWant(t, res, verdict.Pass, nil)
	})
	t.Run("accepted", func(t *testing.T) {
		res := check.Run(staleEpochZombie(history.OK, "").obs, allowed)
		if res.Verdict != verdict.Anomaly || res.Anomalies[verdict.AnomalyZombieAcks].Count != 1 {
			t.Fatalf("verdict %s anomalies %v, want ANOMALY with zombie-acks 1", res.Verdict, res.Anomalies)
		}
		ex := res.Anomalies[verdict.AnomalyZombieAcks].Examples[0]
		if ex.Record != "r-000000" || !strings.Contains(ex.Summary, "w1.1 txn 1 sent its acks") ||
			!strings.Contains(ex.Summary, "after its replacement w1.2 started") {
			t.Errorf("example %+v", ex)
		}
	})
}
