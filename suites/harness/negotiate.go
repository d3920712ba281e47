package harness

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

// TxnDecision is how the run realizes the transactional mode.
type TxnDecision struct {
	Mode        ctp.AckMode
	Realization string
	// Warning is set when transactional fell back to explicit.
	Warning string
}

// DecideTransactional applies --txn-acks and --on-unsupported to what the
// brokers advertise (CONTRACT.md), asking ApiVersions before anything of
// KIP-1289 is sent: a stock broker closes the connection on an unknown key and
// kfake crashes.
func DecideTransactional(ctx context.Context, c Common, cl cluster.Cluster) (TxnDecision, error) {
	if !slices.Contains(c.Modes, ctp.Transactional) {
		return TxnDecision{}, nil
	}
	client, err := cluster.NewClient(cl, kgo.ClientID("sharechaos-negotiate"))
	if err != nil {
		return TxnDecision{}, fmt.Errorf("negotiate KIP-1289: %w", err)
	}
	defer client.Close()
	nctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	support, err := kip1289.Negotiate(nctx, client, c.KIP1289Keys)
	if err != nil {
		return TxnDecision{}, fmt.Errorf("negotiate KIP-1289: %w", err)
	}
	d, err := kip1289.Resolve(kip1289.Choice(c.TxnAcks), kip1289.OnUnsupported(c.OnUnsupported), support)
	if err != nil {
		return TxnDecision{}, &UsageError{Msg: err.Error()}
	}
	return TxnDecision{Mode: ctp.AckMode(d.Mode), Realization: d.Realization, Warning: d.Warning}, nil
}

// DecideRealizations is DecideTransactional once per realization named with
// --mode transactional/<realization>, or once for --txn-acks when none is.
func DecideRealizations(ctx context.Context, c Common, cl cluster.Cluster) ([]TxnDecision, error) {
	if len(c.Realizations) == 0 {
		d, err := DecideTransactional(ctx, c, cl)
		if err != nil {
			return nil, err
		}
		return []TxnDecision{d}, c.checkDecided([]TxnDecision{d})
	}
	var out []TxnDecision
	for _, r := range c.Realizations {
		one := c
		one.TxnAcks, one.Realizations = r, nil
		d, err := DecideTransactional(ctx, one, cl)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
