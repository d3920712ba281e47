package ctp

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TxnAcker is the seam where the transactional ack mode plugs into the CTP loop:
// how a batch's acknowledgements become part of the output transaction. The
// realizations (KIP-1289's native RPCs, or the ledger on brokers without them)
// live in workloads/kip1289; the loop calls them in this order per batch:
//
//	poll -> PreCheck -> begin -> produce outputs -> flush -> AddAcks ->
//	Validate -> commit (or abort) -> ACCEPT / RELEASE as the outcome says
//
// The loop owns the producer, the consumer, the history and every
// non-transactional ack; a TxnAcker never acks on its own.
type TxnAcker interface {
	// Realization is its name, as reports spell it.
	Realization() string
	// LeavesAcksToTxn: the transaction carries the acks to the broker, which
	// settles them; the loop then sends no non-transactional ack at all, not
	// even a RELEASE after an abort (the broker returns the records).
	LeavesAcksToTxn() bool
	// PreCheck runs before beginTransaction. It returns the records of batch
	// whose ack some transaction already committed: the loop ACCEPTs them
	// without processing. It may renew the batch's locks while it waits.
	PreCheck(ctx context.Context, batch []*kgo.Record) (alreadyDone []*kgo.Record, err error)
	// AddAcks puts the ACCEPT of every record of batch into the open
	// transaction of txn.Producer (after the outputs were produced).
	AddAcks(ctx context.Context, txn Txn, batch []*kgo.Record) error
	// Validate runs after the flush, before the commit. A non-empty conflicts
	// means some records' acks were committed by another transaction first:
	// the loop aborts, ACCEPTs conflicts and RELEASEs the rest.
	Validate(ctx context.Context, txn Txn, batch []*kgo.Record) (conflicts []*kgo.Record, err error)
	// Close releases what the acker holds (its own clients).
	Close()
}

// AckRequestReporter is a TxnAcker whose broker settles the acks and that
// can say how the last AddAcks carried them: the share-partitions of each
// TxnShareAcknowledge it sent (the history keeps them, so a row can demand a
// request that carried several share-partitions of one broker).
type AckRequestReporter interface {
	// AckRequests are the requests of the last successful AddAcks, each the
	// node it went to and the input partitions it carried.
	AckRequests() []AckRequest
}

// AckTimingReporter is a TxnAcker that can say where the last successful
// AddAcks's time went, request by request (native: KIP-1289's two RPCs).
type AckTimingReporter interface {
	// AckTimes: the checks and flush before the first request, the
	// AddShareAcksToTxn to the transaction coordinator, the
	// TxnShareAcknowledges to the share-partitions' leaders.
	AckTimes() (prepare, addToTxn, stage time.Duration)
}

// AckRequest is one TxnShareAcknowledge: its broker and the input partitions
// it carried.
type AckRequest struct {
	Node       int32
	Partitions []int32
}

// Txn identifies the open transaction a TxnAcker works in.
type Txn struct {
	// Worker is slot.incarnation; Seq the worker's transaction number.
	Worker string
	Seq    int64
	// Producer is the worker's transactional client with the transaction open.
	Producer *kgo.Client
	// Consumer is the worker's share-group client (renews go through it);
	// nil on our share consumer.
	Consumer *kgo.Client
	// MemberID and MemberEpoch are the share-group member's, when the
	// consumer knows them (ours does; kgo's does not: "" and -1). The native
	// realization sends them with TxnShareAcknowledge.
	MemberID    string
	MemberEpoch int32
}
