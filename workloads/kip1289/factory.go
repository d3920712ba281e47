package kip1289

import (
	"context"
	"errors"
	"fmt"

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
//   - "native": on our share consumer (consumer is nil), with the worker's
//     API keys; refused on kgo's (errKgoAutoAccepts).
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
		if consumer != nil {
			return nil, fmt.Errorf("new txn acker: %w", errKgoAutoAccepts)
		}
		keys := workerKeys(cfg)
		// The member id and epoch come with each transaction from our share
		// consumer (ctp.Txn); the metadata source only names the group.
		return NewNativeAcker(NativeConfig{
			Keys:               keys,
			ConsumerLeavesAcks: true, // ctp.WorkerConfig.Validate: native runs on our share consumer
			OmitMemberTags:     cfg.OmitsMemberTags(),
			Metadata: func(context.Context) (ShareGroupMetadata, error) {
				return ShareGroupMetadata{GroupID: cfg.Group}, nil
			},
		})
	}
	return nil, fmt.Errorf("new txn acker: realization %q: want ledger or native", cfg.Realization)
}

var _ ctp.NewTxnAcker = NewTxnAcker

// ProducerOpts are the options a worker's transactional producer needs for
// cfg's realization (ctp.Deps.ProducerOpts): native sends KIP-1289's RPCs
// through it, which kgo refuses unless its versions table has their keys.
func ProducerOpts(cfg ctp.WorkerConfig) []kgo.Opt {
	if cfg.Mode != ctp.Transactional || cfg.Realization != RealizationNative {
		return nil
	}
	return []kgo.Opt{workerKeys(cfg).ClientOpt()}
}

func workerKeys(cfg ctp.WorkerConfig) APIKeys {
	return APIKeys{AddShareAcksToTxn: cfg.AddShareAcksToTxnKey, TxnShareAcknowledge: cfg.TxnShareAcknowledgeKey}.orDefault()
}
