package kip1289

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289/ledger"
)

// NewTxnAcker builds the realization cfg.Realization names (Realizations)
// for one worker; it has ctp.NewTxnAcker's signature, so the worker role's
// main passes it to ctp.RunWorker (ctp cannot import this package: it
// depends on ctp for the seam).
func NewTxnAcker(ctx context.Context, cfg ctp.WorkerConfig, consumer *kgo.Client) (ctp.TxnAcker, error) {
	r, ok := LookupRealization(cfg.Realization)
	if !ok {
		return nil, fmt.Errorf("new txn acker: %w", errUnknownRealization(cfg.Realization))
	}
	return r.New(ctx, cfg, consumer)
}

var _ ctp.NewTxnAcker = NewTxnAcker

// ProducerOpts are the options a worker's transactional producer needs for
// cfg's realization (ctp.Deps.ProducerOpts).
func ProducerOpts(cfg ctp.WorkerConfig) []kgo.Opt {
	r, ok := LookupRealization(cfg.Realization)
	if cfg.Mode != ctp.Transactional || !ok || r.ProducerOpts == nil {
		return nil
	}
	return r.ProducerOpts(cfg)
}

// newLedgerAcker: the ledger partition is partition 0 of cfg.LedgerTopic
// (one partition per share group); the reader client has the worker's
// bootstrap and a client id of its own.
func newLedgerAcker(ctx context.Context, cfg ctp.WorkerConfig, consumer *kgo.Client) (ctp.TxnAcker, error) {
	if cfg.LedgerTopic == "" {
		return nil, fmt.Errorf("new txn acker: %w", errNoLedgerTopic)
	}
	secure, err := cfg.Client.Opts()
	if err != nil {
		return nil, fmt.Errorf("new txn acker: %w", err)
	}
	return ledger.New(ctx, ledger.Config{
		Topic:      cfg.LedgerTopic,
		Group:      cfg.Group,
		Seeds:      cfg.Bootstrap,
		ClientOpts: append([]kgo.Opt{kgo.ClientID("sharechaos-" + cfg.Name() + "-ledger")}, secure...),
		Consumer:   consumer,
	})
}

// newNativeAcker: on our share consumer (consumer is nil), with the
// worker's API keys; refused on kgo's (errKgoAutoAccepts).
func newNativeAcker(_ context.Context, cfg ctp.WorkerConfig, consumer *kgo.Client) (ctp.TxnAcker, error) {
	if consumer != nil {
		return nil, fmt.Errorf("new txn acker: %w", errKgoAutoAccepts)
	}
	// The member id and epoch come with each transaction from our share
	// consumer (ctp.Txn); the metadata source only names the group.
	return NewNativeAcker(NativeConfig{
		Keys:               workerKeys(cfg),
		ConsumerLeavesAcks: true, // CheckWorker: native runs on our share consumer
		OmitMemberTags:     cfg.OmitsMemberTags(),
		Metadata: func(context.Context) (ShareGroupMetadata, error) {
			return ShareGroupMetadata{GroupID: cfg.Group}, nil
		},
	})
}

// nativeProducerOpts: native sends KIP-1289's RPCs through the producer,
// which kgo refuses unless its versions table has their keys.
func nativeProducerOpts(cfg ctp.WorkerConfig) []kgo.Opt {
	return []kgo.Opt{workerKeys(cfg).ClientOpt()}
}

func workerKeys(cfg ctp.WorkerConfig) APIKeys {
	return APIKeys{AddShareAcksToTxn: cfg.AddShareAcksToTxnKey, TxnShareAcknowledge: cfg.TxnShareAcknowledgeKey}.orDefault()
}
