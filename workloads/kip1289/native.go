package kip1289

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// errKgoAutoAccepts is why the native workload cannot run on kgo's share
// consumer today.
var errKgoAutoAccepts = errors.New("kgo's share consumer ACCEPTs, on the next poll, every record of " +
	"the previous poll that was not marked, and its only marks (accept, release, reject, renew) are " +
	"themselves non-transactional acks; so a CTP loop on it cannot leave a record's ack to the " +
	"transaction: the ack would be sent twice, once outside the transaction, which hides a broker " +
	"that fails to materialize transactional acks")

// NativeWorkloadSupported reports whether the native realization can run a
// CTP loop. It can: the loop runs it on our share consumer
// (workloads/shareconsumer, ctp.ConsumerSharechaos), which never acks on its
// own. kgo's share consumer cannot carry it (errKgoAutoAccepts), and the
// worker config refuses that pairing.
func NativeWorkloadSupported() error { return nil }

// NativeConfig configures the native realization.
type NativeConfig struct {
	Keys APIKeys
	// Metadata gives the share-group member's metadata for each transaction
	// (LookupShareMember finds it by client id).
	Metadata func(ctx context.Context) (ShareGroupMetadata, error)
	// ConsumerLeavesAcks asserts that the loop's share consumer sends no ack
	// of its own for records whose acks went into a transaction. kgo's share
	// consumer does not (errKgoAutoAccepts), so NewNativeAcker refuses
	// without it.
	ConsumerLeavesAcks bool
	// OmitMemberTags sends TxnShareAcknowledge as KIP-1289 writes it, without
	// the proposed member id and epoch, even when the consumer knows them: a
	// broker then cannot check that the acking member holds the records
	// (docs/FINDINGS.md 2; run flag --kip1289-member-tags omit).
	OmitMemberTags bool
	// OnClose, if set, runs at Close (e.g. to close the client Metadata uses).
	OnClose func()
}

// NativeAcker is the native realization of ctp.TxnAcker: the batch's ACCEPTs
// go into the transaction with AddShareAcksToTxn and TxnShareAcknowledge, and
// the broker decides what commits. It has no pre-check and nothing to
// validate: the broker is the one source of truth.
type NativeAcker struct {
	cfg     NativeConfig
	senders map[*kgo.Client]*Sender
}

var (
	_ ctp.TxnAcker           = (*NativeAcker)(nil)
	_ ctp.AckRequestReporter = (*NativeAcker)(nil)
)

// NewNativeAcker builds the native realization.
func NewNativeAcker(cfg NativeConfig) (*NativeAcker, error) {
	if !cfg.ConsumerLeavesAcks {
		return nil, fmt.Errorf("new native acker: %w", errKgoAutoAccepts)
	}
	if cfg.Metadata == nil {
		return nil, errors.New("new native acker: no share group metadata source")
	}
	if err := cfg.Keys.Validate(); err != nil {
		return nil, fmt.Errorf("new native acker: %w", err)
	}
	return &NativeAcker{cfg: cfg, senders: make(map[*kgo.Client]*Sender)}, nil
}

func (*NativeAcker) Realization() string { return RealizationNative }

// LeavesAcksToTxn: the broker settles the acks the transaction carries.
func (*NativeAcker) LeavesAcksToTxn() bool { return true }

// PreCheck has nothing to look up: the broker does not hand out a record
// whose ack committed.
func (*NativeAcker) PreCheck(context.Context, []*kgo.Record) ([]*kgo.Record, error) { return nil, nil }

// AddAcks sends the batch's ACCEPTs into txn's transaction.
func (a *NativeAcker) AddAcks(ctx context.Context, txn ctp.Txn, batch []*kgo.Record) error {
	acks, err := FromRecords(batch, AckAccept)
	if err != nil {
		return err
	}
	md, err := a.cfg.Metadata(ctx)
	if err != nil {
		return fmt.Errorf("share group metadata: %w", err)
	}
	switch {
	case a.cfg.OmitMemberTags:
		// The KIP as written: the request names no member, whatever the
		// metadata source said.
		md.MemberID, md.GenerationID = "", 0
	case txn.MemberID != "":
		// The consumer knows its member id and current epoch: they go with
		// TxnShareAcknowledge (the proposed amendment), so the broker can
		// check that this member still holds the acquisition.
		md.MemberID, md.GenerationID = txn.MemberID, txn.MemberEpoch
	}
	// The loop replaces its producer after a failed commit: one sender per
	// producer, and the old ones go (one producer is live at a time).
	s, ok := a.senders[txn.Producer]
	if !ok {
		// ctp.TxnAcker: AddAcks comes after the batch's outputs were
		// produced and flushed, so the transaction is open with records.
		s, err = NewSender(txn.Producer, a.cfg.Keys, CallerProducesFirst())
		if err != nil {
			return err
		}
		clear(a.senders)
		a.senders[txn.Producer] = s
	}
	return s.SendShareAcksToTransaction(ctx, acks, md)
}

// AckRequests are the TxnShareAcknowledge requests of the last AddAcks, each
// with the input partitions it carried (ctp.AckRequestReporter).
func (a *NativeAcker) AckRequests() []ctp.AckRequest {
	var out []ctp.AckRequest
	for _, s := range a.senders { // one: the live producer's
		for _, r := range s.LastRequests() {
			req := ctp.AckRequest{Node: r.Node}
			for _, tp := range r.Partitions {
				req.Partitions = append(req.Partitions, tp.Partition)
			}
			out = append(out, req)
		}
	}
	return out
}

// AckTimes is where the last AddAcks's time went (ctp.AckTimingReporter).
func (a *NativeAcker) AckTimes() (prepare, addToTxn, stage time.Duration) {
	for _, s := range a.senders { // one: the live producer's
		t := s.LastTimings()
		return t.Prepare, t.AddShareAcksToTxn, t.TxnShareAcknowledge
	}
	return 0, 0, 0
}

// Validate has nothing to check: conflicts are the broker's to refuse.
func (*NativeAcker) Validate(context.Context, ctp.Txn, []*kgo.Record) ([]*kgo.Record, error) {
	return nil, nil
}

func (a *NativeAcker) Close() {
	clear(a.senders)
	if a.cfg.OnClose != nil {
		a.cfg.OnClose()
	}
}
