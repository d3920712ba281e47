package suites

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// newTxnAcker builds the transactional mode's realization inside a worker.
func newTxnAcker(ctx context.Context, cfg ctp.WorkerConfig, consumer *kgo.Client) (ctp.TxnAcker, error) {
	return nil, fmt.Errorf("transactional mode (%s realization) is not wired yet", cfg.Realization)
}
