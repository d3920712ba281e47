package ctp

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/history"
)

// The commit classifier is the one place that decides which commit errors are
// definite: a definite failure recorded as unknown hides nothing, but an
// unknown recorded as a failure would let the checker call a committed
// transaction aborted.
func TestCommitOutcomeClassifiesDefiniteAndUnknown(t *testing.T) {
	for _, c := range []struct {
		err  error
		want history.Type
	}{
		{nil, history.OK},
		{kerr.TransactionAbortable, history.Fail},
		{fmt.Errorf("end txn: %w", kerr.InvalidTxnState), history.Fail},
		{kerr.OperationNotAttempted, history.Fail},
		{kerr.ProducerFenced, history.Info},
		{kerr.RequestTimedOut, history.Info},
		{context.DeadlineExceeded, history.Info},
		{errors.New("connection reset"), history.Info},
	} {
		if got := commitOutcome(c.err); got != c.want {
			t.Errorf("commitOutcome(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
