package ledger

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// The interleavings that break weaker rules than "the ledger decides"
// (ARCHITECTURE.md, ledger step 4), each driven step by step on kfake.

func handmade(offsets ...int64) []*kgo.Record {
	out := make([]*kgo.Record, len(offsets))
	for i, o := range offsets {
		id := ctp.InputID(int(o))
		out[i] = &kgo.Record{Topic: "in", Partition: 0, Offset: o, Key: []byte(id), Value: []byte(ctp.Payload(id))}
	}
	return out
}

// A reader behind a stalled writer (a transaction open with its ledger entry)
// waits, renewing, and decides right once the writer commits or aborts.
func TestReaderWaitsBehindStalledWriter(t *testing.T) {
	for _, commit := range []bool{true, false} {
		outcome := map[bool]string{true: "writer-commits", false: "writer-aborts"}[commit]

		t.Run("pre-check/"+outcome, func(t *testing.T) {
			c := newCell(t, 3)
			writer, reader := c.worker("w1.0"), c.worker("w2.0")
			batch := handmade(0, 1, 2)
			writer.process(batch)
			writer.addAcks(batch)

			ch := async(func() ([]*kgo.Record, error) { return reader.acker.PreCheck(context.Background(), batch) })
			waitBlocked(t, reader, ch, "pre-check")

			if commit {
				if conflicts := writer.validate(batch); len(conflicts) != 0 {
					t.Fatalf("writer conflicts %v", srcs(conflicts))
				}
				writer.end(kgo.TryCommit)
			} else {
				writer.end(kgo.TryAbort)
			}
			r := <-ch
			if r.err != nil {
				t.Fatal(r.err)
			}
			if commit {
				sameRecords(t, "already done after the writer committed", r.recs, batch)
			} else {
				sameRecords(t, "already done after the writer aborted", r.recs, nil)
			}
		})

		t.Run("validate/"+outcome, func(t *testing.T) {
			c := newCell(t, 3)
			writer, reader := c.worker("w1.0"), c.worker("w2.0")
			batch := handmade(0, 1, 2)
			writer.process(batch)
			writer.addAcks(batch) // ledger entry 0
			reader.process(batch)
			reader.addAcks(batch) // ledger entry 1

			ch := async(func() ([]*kgo.Record, error) {
				return reader.acker.Validate(context.Background(), reader.txn(), batch)
			})
			waitBlocked(t, reader, ch, "validate")

			if commit {
				if conflicts := writer.validate(batch); len(conflicts) != 0 {
					t.Fatalf("writer conflicts %v", srcs(conflicts))
				}
				writer.end(kgo.TryCommit)
			} else {
				writer.end(kgo.TryAbort)
			}
			r := <-ch
			if r.err != nil {
				t.Fatal(r.err)
			}
			if commit {
				sameRecords(t, "reader's conflicts after the writer committed", r.recs, batch)
				reader.end(kgo.TryAbort)
				c.exactlyOnce(3, "w1.0")
			} else {
				sameRecords(t, "reader's conflicts after the writer aborted", r.recs, nil)
				reader.end(kgo.TryCommit)
				c.exactlyOnce(3, "w2.0")
			}
		})
	}
}

// Records released by a dropped connection (not by lock expiry) reach a
// second worker while the first still holds an open transaction over them.
// Whatever the order, exactly one transaction commits their outputs, and the
// share group ends done with every record.
func TestDroppedConnectionRedelivery(t *testing.T) {
	const n = 5
	setup := func(t *testing.T) (*cell, *worker, *worker, []*kgo.Record, []*kgo.Record) {
		c := newCell(t, n)
		a, b := c.worker("w1.0"), c.worker("w2.0")
		batchA := a.poll(n)
		if done, err := a.acker.PreCheck(context.Background(), batchA); err != nil || len(done) != 0 {
			t.Fatalf("first pre-check: %v %v", srcs(done), err)
		}
		a.process(batchA) // A's transaction is open, its outputs produced
		if closed := a.cdial.CloseAll(); closed == 0 {
			t.Fatal("the first worker's consumer had no connection to drop")
		}
		batchB := b.poll(n)
		for _, r := range batchB {
			if r.DeliveryCount() < 2 {
				t.Fatalf("%s delivered to the second worker with count %d: not a redelivery", ctp.Src(r.Topic, r.Partition, r.Offset), r.DeliveryCount())
			}
			if time.Until(r.AcquisitionDeadline()) < 5*time.Second {
				t.Fatal("the lock is short enough to expire: this test wants the connection, not the lock, to release the records")
			}
		}
		return c, a, b, batchA, batchB
	}

	t.Run("second-worker-commits-first", func(t *testing.T) {
		c, a, b, batchA, batchB := setup(t)
		if done, err := b.acker.PreCheck(context.Background(), batchB); err != nil || len(done) != 0 {
			t.Fatalf("second pre-check: %v %v", srcs(done), err)
		}
		b.process(batchB)
		b.addAcks(batchB) // ledger entry 0
		a.addAcks(batchA) // ledger entry 1
		chA := async(func() ([]*kgo.Record, error) { return a.acker.Validate(context.Background(), a.txn(), batchA) })
		waitBlocked(t, a, chA, "first worker's validate")

		if conflicts := b.validate(batchB); len(conflicts) != 0 {
			t.Fatalf("second worker conflicts %v", srcs(conflicts))
		}
		b.end(kgo.TryCommit)
		b.ack(kgo.AckAccept, batchB)

		r := <-chA
		if r.err != nil {
			t.Fatal(r.err)
		}
		sameRecords(t, "first worker's conflicts", r.recs, batchA)
		a.end(kgo.TryAbort)
		a.ack(kgo.AckAccept, r.recs) // as the loop does; A no longer holds them
		c.exactlyOnce(n, "w2.0")
		c.shareDone(n)
	})

	t.Run("first-worker-commits-while-second-pre-checks", func(t *testing.T) {
		c, a, b, batchA, batchB := setup(t)
		a.addAcks(batchA) // ledger entry 0, transaction open
		chB := async(func() ([]*kgo.Record, error) { return b.acker.PreCheck(context.Background(), batchB) })
		waitBlocked(t, b, chB, "second worker's pre-check")

		if conflicts := a.validate(batchA); len(conflicts) != 0 {
			t.Fatalf("first worker conflicts %v", srcs(conflicts))
		}
		a.end(kgo.TryCommit)
		a.ack(kgo.AckAccept, batchA) // fails at the broker: A's session is gone

		r := <-chB
		if r.err != nil {
			t.Fatal(r.err)
		}
		sameRecords(t, "second worker's already-done records", r.recs, batchB)
		b.ack(kgo.AckAccept, r.recs)
		c.exactlyOnce(n, "w1.0")
		c.shareDone(n)
	})

	t.Run("first-worker-commits-while-second-validates", func(t *testing.T) {
		c, a, b, batchA, batchB := setup(t)
		// B's pre-check ran before A's entry existed: it saw nothing.
		if done, err := b.acker.PreCheck(context.Background(), batchB); err != nil || len(done) != 0 {
			t.Fatalf("second pre-check: %v %v", srcs(done), err)
		}
		a.addAcks(batchA) // ledger entry 0
		b.process(batchB)
		b.addAcks(batchB) // ledger entry 1
		chB := async(func() ([]*kgo.Record, error) { return b.acker.Validate(context.Background(), b.txn(), batchB) })
		waitBlocked(t, b, chB, "second worker's validate")

		if conflicts := a.validate(batchA); len(conflicts) != 0 {
			t.Fatalf("first worker conflicts %v", srcs(conflicts))
		}
		a.end(kgo.TryCommit)

		r := <-chB
		if r.err != nil {
			t.Fatal(r.err)
		}
		sameRecords(t, "second worker's conflicts", r.recs, batchB)
		b.end(kgo.TryAbort)
		b.ack(kgo.AckAccept, r.recs)
		c.exactlyOnce(n, "w1.0")
		c.shareDone(n)
	})
}

// A commit whose outcome the worker cannot know: it RELEASEs (never
// ACCEPTs), and the next holder decides from the ledger.
func TestUnknownCommitOutcome(t *testing.T) {
	const n = 4
	setup := func(t *testing.T, drop int32) (*cell, *worker, *worker, []*kgo.Record) {
		c := newCell(t, n)
		a, b := c.worker("w1.0"), c.worker("w2.0")
		batch := a.poll(n)
		if done, err := a.acker.PreCheck(context.Background(), batch); err != nil || len(done) != 0 {
			t.Fatalf("pre-check: %v %v", srcs(done), err)
		}
		a.process(batch)
		a.addAcks(batch)
		if conflicts := a.validate(batch); len(conflicts) != 0 {
			t.Fatalf("conflicts %v", srcs(conflicts))
		}
		a.dropEndTxn.Store(drop)
		ectx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := a.producer.EndTransaction(ectx, kgo.TryCommit); err == nil {
			t.Fatal("commit with its EndTxn lost returned no error")
		}
		a.ack(kgo.AckRelease, batch)
		return c, a, b, batch
	}

	t.Run("committed-answer-lost", func(t *testing.T) {
		c, _, b, _ := setup(t, dropResponse)
		batchB := b.poll(n)
		done, err := b.acker.PreCheck(context.Background(), batchB)
		if err != nil {
			t.Fatal(err)
		}
		sameRecords(t, "next holder's already-done records", done, batchB)
		b.ack(kgo.AckAccept, done)
		c.exactlyOnce(n, "w1.0")
		c.shareDone(n)
	})

	t.Run("never-arrived", func(t *testing.T) {
		c, a, b, _ := setup(t, dropRequest)
		batchB := b.poll(n)
		ch := async(func() ([]*kgo.Record, error) { return b.acker.PreCheck(context.Background(), batchB) })
		waitBlocked(t, b, ch, "next holder's pre-check") // behind A's transaction, still open at the coordinator

		// A's replacement registers the same transactional id: the open
		// transaction is aborted at once.
		a.dropEndTxn.Store(dropNone)
		a.newProducer()
		r := <-ch
		if r.err != nil {
			t.Fatal(r.err)
		}
		sameRecords(t, "already done after the abort", r.recs, nil)
		b.process(batchB)
		b.addAcks(batchB)
		if conflicts := b.validate(batchB); len(conflicts) != 0 {
			t.Fatalf("conflicts %v", srcs(conflicts))
		}
		b.end(kgo.TryCommit)
		b.ack(kgo.AckAccept, batchB)
		c.exactlyOnce(n, "w2.0")
		c.shareDone(n)
	})
}
