package suites

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// txnDecision is how the run realizes the transactional mode.
type txnDecision struct {
	mode        ctp.AckMode
	realization string
	warning     string
}

// decideTransactional applies --txn-acks and --on-unsupported to what the
// brokers advertise (CONTRACT.md), asking ApiVersions before anything of
// KIP-1289 is sent: a stock broker closes the connection on an unknown key and
// kfake crashes.
func decideTransactional(ctx context.Context, o *Options, c cluster.Cluster) (txnDecision, error) {
	if !slices.Contains(o.Modes, ctp.Transactional) {
		return txnDecision{}, nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.ClientID("sharechaos-negotiate"))
	if err != nil {
		return txnDecision{}, fmt.Errorf("negotiate KIP-1289: %w", err)
	}
	defer cl.Close()
	nctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	support, err := kip1289.Negotiate(nctx, cl, o.KIP1289Keys)
	if err != nil {
		return txnDecision{}, fmt.Errorf("negotiate KIP-1289: %w", err)
	}
	d, err := kip1289.Resolve(kip1289.Choice(o.TxnAcks), kip1289.OnUnsupported(o.OnUnsupported), support)
	if err != nil {
		return txnDecision{}, &UsageError{Msg: err.Error()}
	}
	return txnDecision{mode: ctp.AckMode(d.Mode), realization: d.Realization, warning: d.Warning}, nil
}
