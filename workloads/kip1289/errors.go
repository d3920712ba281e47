package kip1289

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrNoTransaction: acks may only join an open transaction (the KIP's
	// IllegalStateException).
	ErrNoTransaction = errors.New("no open transaction")

	// ErrNothingProduced: the transaction is open in kgo but nothing of it
	// reached the coordinator. kgo's EndTransaction does nothing (and returns
	// nil) for a transaction with nothing produced through kgo, so acks sent
	// into it would stay pending until the transaction timeout aborted them;
	// produce first, or use TransactionalShareAcknowledger for acks alone.
	ErrNothingProduced = errors.New("nothing produced in the transaction yet")

	// ErrNotTransactional: the producer has no transactional id.
	ErrNotTransactional = errors.New("producer is not transactional")

	// ErrOutcomeUnknown: a commit whose response was lost; it may have
	// committed. Never ACCEPT after it: RELEASE, and the next holder decides.
	ErrOutcomeUnknown = errors.New("transaction outcome unknown")
)

// UnsupportedError says which KIP-1289 APIs the brokers do not advertise, by
// name and key ("AddShareAcksToTxn (key 12890)").
type UnsupportedError struct {
	Missing []string
}

func (e *UnsupportedError) Error() string {
	return "broker does not support KIP-1289: missing " + strings.Join(e.Missing, ", ")
}

// PartitionError is one share-partition's refusal of TxnShareAcknowledge.
type PartitionError struct {
	TopicPartition
	Err error
}

// PartitionErrors lists every share-partition that refused its acks; errors.Is
// matches any of them (so errors.Is(err, kerr.ProducerFenced) works).
type PartitionErrors []PartitionError

func (es PartitionErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%s: %v", e.TopicPartition, e.Err)
	}
	return "share acknowledgements refused: " + strings.Join(parts, "; ")
}

func (es PartitionErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e.Err
	}
	return out
}
