// Package kip1289 is the client side of KIP-1289 (transactional
// acknowledgements for share groups) for franz-go users, and the suite's two
// realizations of the transactional ack mode.
//
// Client API, after the KIP's Java API:
//
//	ShareGroupMetadata{GroupID, MemberID, GenerationID}
//	FromRecords(records, AckAccept) -> ShareAcknowledgements (coalesced batches)
//	SendShareAcksToTransaction(ctx, producer, acks, metadata)   // producer.sendShareAcksToTransaction
//	TransactionalShareAcknowledger                               // pipelines without a producer
//
// Wire: the two RPCs of the seed's two-RPC profile live in package wire; their
// API keys are configuration (APIKeys), because upstream has not allocated
// them. Negotiate asks every broker's ApiVersions before anything new is sent
// (kfake crashes on an unknown key; a stock broker closes the connection), and
// Resolve turns `--txn-acks` and `--on-unsupported` into a Decision.
//
// Realizations of the ctp.TxnAcker seam: NewNativeAcker (the KIP-1289 RPCs;
// the loop runs it on our share consumer, never on kgo's, which auto-accepts)
// and package ledger (the
// acks as ledger records in the same transaction, for brokers without
// KIP-1289). NewTxnAcker picks one from a ctp.WorkerConfig.
package kip1289
