package kip1289

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289/ledger"
)

// NewTxnAcker builds the realization cfg.Realization names for one worker; it
// has ctp.NewTxnAcker's signature, so the worker role's main passes it to
// ctp.RunWorker (ctp cannot import this package: it depends on ctp for the
// seam).
//
//   - "ledger": the ledger partition is partition 0 of cfg.LedgerTopic (one
//     partition per share group); the reader client has the worker's
//     bootstrap and a client id of its own.
//   - "native": refused on kgo's share consumer (NativeWorkloadSupported),
//     with the default API keys otherwise.
func NewTxnAcker(ctx context.Context, cfg ctp.WorkerConfig, consumer *kgo.Client) (ctp.TxnAcker, error) {
	secure, err := cfg.Client.Opts()
	if err != nil {
		return nil, fmt.Errorf("new txn acker: %w", err)
	}
	switch cfg.Realization {
	case RealizationLedger:
		if cfg.LedgerTopic == "" {
			return nil, errors.New("new txn acker: ledger realization without a ledger topic")
		}
		return ledger.New(ctx, ledger.Config{
			Topic:      cfg.LedgerTopic,
			Group:      cfg.Group,
			Seeds:      cfg.Bootstrap,
			ClientOpts: append([]kgo.Opt{kgo.ClientID("sharechaos-" + cfg.Name() + "-ledger")}, secure...),
			Consumer:   consumer,
		})
	case RealizationNative:
		if err := NativeWorkloadSupported(); err != nil {
			return nil, err
		}
		clientID := "sharechaos-" + cfg.Name() // the loop's consumer's client id
		adm, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(cfg.Bootstrap...)}, secure...)...)
		if err != nil {
			return nil, fmt.Errorf("new txn acker: %w", err)
		}
		var md *ShareGroupMetadata // looked up once: the wire carries only the group
		acker, err := NewNativeAcker(NativeConfig{
			Keys:               DefaultAPIKeys(),
			ConsumerLeavesAcks: true, // unreachable until NativeWorkloadSupported says so
			Metadata: func(ctx context.Context) (ShareGroupMetadata, error) {
				if md == nil {
					got, err := LookupShareMember(ctx, kadm.NewClient(adm), cfg.Group, clientID)
					if err != nil {
						return ShareGroupMetadata{}, err
					}
					md = &got
				}
				return *md, nil
			},
			OnClose: adm.Close,
		})
		if err != nil {
			adm.Close()
			return nil, err
		}
		return acker, nil
	}
	return nil, fmt.Errorf("new txn acker: realization %q: want ledger or native", cfg.Realization)
}

var _ ctp.NewTxnAcker = NewTxnAcker
