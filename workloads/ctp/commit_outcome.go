package ctp

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/internal/history"
)

// commitOutcome classifies the error of EndTransaction(TryCommit) into what the
// history records. It is the one place that decides which commit errors are
// definite; every carve-out says why.
//
//   - nil: committed (ok).
//   - TRANSACTION_ABORTABLE, INVALID_TXN_STATE: the coordinator refused the
//     commit in its response, so nothing committed (fail).
//   - OPERATION_NOT_ATTEMPTED: kgo did not send EndTxn at all (the
//     transaction had already failed client-side), so nothing committed (fail).
//   - everything else, fencing included, is info (unknown): a retried EndTxn
//     whose first response was lost may have committed, and kgo's documented
//     TryAbort retry can return nil although the commit went through
//     (ENVIRONMENT.md). A producer fenced at EndTxn by a replacement that
//     started after our commit reached the coordinator is fenced and committed.
func commitOutcome(err error) history.Type {
	switch {
	case err == nil:
		return history.OK
	case errors.Is(err, kerr.TransactionAbortable), errors.Is(err, kerr.InvalidTxnState),
		errors.Is(err, kerr.OperationNotAttempted):
		return history.Fail
	}
	return history.Info
}

// Fenced reports whether err says a newer producer with our transactional id
// took over: this producer must stop. The one definition: the loop and the
// KIP-1289 client API both ask it.
func Fenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}
