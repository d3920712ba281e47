// Package ledger is the ledger realization of the transactional ack mode, for
// brokers without KIP-1289 (ARCHITECTURE.md, "The ledger realization, step by
// step"). Its one rule: a record's ack commits at most once, and the ledger
// decides who wins.
//
// Each transaction writes exactly one ledger record into one ledger partition
// (one per share group), through the worker's transactional producer, inside
// the transaction that carries the outputs: key "worker/seq", value the
// batch's input records as "topic/partition/offset" lines. It commits or aborts
// with the outputs through Kafka's ordinary two-phase commit.
//
//   - PreCheck (saves work, not the safety rule): read the ledger
//     read_committed up to a fresh high watermark; records some committed
//     entry already holds are accepted without processing. Renew the batch's
//     locks while waiting behind someone's open transaction.
//   - AddAcks: produce the entry, check its result, remember its offset.
//   - Validate (the safety rule): read the ledger read_committed up to our own
//     entry. The read cannot pass an earlier open transaction, so it waits for
//     every earlier writer's outcome. A batch record with a committed entry
//     below ours is a conflict: the loop aborts.
//
// The first committed entry for a record wins because every later writer's
// validation waits for it and then sees it. Memory stays bounded: entries for
// records below their share-partition's start offset are forgotten (those
// records can never be delivered again).
package ledger
