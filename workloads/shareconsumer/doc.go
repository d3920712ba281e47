// Package shareconsumer is a KIP-932 share-group consumer that leaves every
// acknowledgement to its caller, so that acks can go into a producer's
// transaction (KIP-1289's TxnShareAcknowledge) instead of being sent by the
// consumer. It speaks the share protocol itself (ShareGroupHeartbeat,
// ShareFetch, ShareAcknowledge) with franz-go's kmsg types, using a
// *kgo.Client only as the transport: it never starts kgo's own share or
// group consumer.
//
// A caller runs a poll loop:
//
//	c, err := shareconsumer.New(ctx, shareconsumer.Config{Bootstrap: addrs, Group: "g", Topics: []string{"in"}})
//	for {
//		recs, err := c.Poll(ctx)
//		// ... process, then decide each record's fate ...
//		res, err := c.Acknowledge(ctx, shareconsumer.AckRecords(shareconsumer.Accept, recs...))
//	}
//	c.Close(ctx)
//
// What it guarantees:
//
//   - No acknowledgement of a record of its own. A record Poll returned stays
//     acquired by this member until the caller acknowledges it (Acknowledge),
//     its acquisition lock expires, or the share session holding it ends
//     (Close, or a lost connection: the broker ties a share session to the
//     connection that opened it and releases the session's records when it
//     closes). Polling again does not acknowledge the previous batch.
//     The one exception is offsets that are not records: acquired offsets
//     with no data record in the response (control records of transactions,
//     compacted-away offsets) are acknowledged as GAP on the next request to
//     that broker, since the caller never sees them and they would otherwise
//     pin the share start offset until their locks expire.
//   - Every acknowledgement outcome is reported. Acknowledge returns a result
//     per partition and a non-nil error whenever any partition's ack failed
//     (the broker rejected it, the session was gone, the request was lost).
//     An ack that failed may or may not have been applied when the error is a
//     transport error; the caller must not assume either.
//   - What a transactional realization needs is exposed: MemberID,
//     MemberEpoch, and per record its topic (name and id), partition, offset
//     and delivery count.
//   - One ShareFetch per Poll, to one broker (round-robin over the leaders of
//     the assigned partitions), asking for at most Config.MaxRecords records
//     and waiting at most Config.MaxWait, so an idle broker does not hold a
//     worker while others have records.
//
// What it does not guarantee:
//
//   - Isolation is the group's: share.isolation.level is a group config the
//     broker applies (set read_committed for transactional input). Aborted
//     batches and control batches may still be in the record data; records
//     outside the acquired ranges and control batches are dropped.
//   - Records are decoded from record batch v2 only (Kafka 0.11+ writes
//     nothing else); every codec kgo can decompress is supported.
//   - Nothing is retried behind the caller's back except a fetch whose share
//     session the broker no longer knows (reopened at epoch 0 once per
//     Poll). Leader changes refresh metadata and take effect on the next
//     Poll; records acquired from the old leader are the old leader's to
//     release.
//   - Close releases nothing explicitly: it closes each share session (epoch
//     -1) and leaves the group (member epoch -1); the broker then releases
//     whatever this member still held, and those records are redelivered
//     with their delivery count incremented. A caller that wants them back
//     sooner than the other members' next fetch RELEASEs them first.
//   - kgo reaps connections idle for longer than its ConnIdleTimeout, which
//     would end the share session and release held records: New raises the
//     timeout to Config.ConnIdleTimeout (default 10 minutes) on the client it
//     builds; a caller passing its own client options keeps that in mind.
package shareconsumer
