package check

import (
	"fmt"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// checkHangingTransactions reports every output partition the read-back
// found hanging (ctp.HangingError): its last stable offset stuck below its
// end with the data there. The outputs past the stuck offset could not be
// read, so the loss and duplicate counts of the records they belong to are
// what was visible, not the whole truth; the anomaly says so.
func checkHangingTransactions(s *state) *part {
	p := newPart()
	for _, h := range s.obs.HangingOutputs {
		p.report(verdict.AnomalyHangingTransaction, "", "", func() string {
			return fmt.Sprintf("output partition %d: a read_committed consumer stayed at offset %d of %d (data up to %d) "+
				"long after every transaction should have ended; outputs past it are unread, so counts of their records "+
				"are what was visible", h.Partition, h.LSO, h.End, h.HighWatermark)
		})
	}
	return p
}
