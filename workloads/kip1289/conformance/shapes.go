package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/shareconsumer"
)

// A shape is what one transaction's KIP-1289 requests carry: several
// share-partitions of one leader in one TxnShareAcknowledge, several topics,
// several batches of one share-partition with gaps between them, mixed ack
// types, several share groups in one transaction. A broker that handles only
// the first share-partition of a request, or only the first batch, answers
// every one the same; so each shape's case checks every record's outcome on
// the broker's state: pending while the transaction is open, then, after the
// commit, finalized (ACCEPT, REJECT) or delivered again (RELEASE, and the
// gaps, which stay the member's), or after the abort, the member's again.
type shape struct {
	// topics input topics of partitions share-partitions each, records
	// records in each, for each of groups share groups.
	topics, partitions, records, groups int
	// acks are the batches acknowledged of one share-partition (index i of
	// the partitions, over every topic), offsets as positions in it; the
	// records no batch covers are the gaps.
	acks func(i int) []plannedBatch
}

// plannedBatch is one acknowledgement batch: positions first..last of the
// share-partition's records, acknowledged with typ.
type plannedBatch struct {
	first, last int
	typ         kip1289.AckType
}

// accept is every record of a share-partition of n records in one batch.
func accept(n int) func(int) []plannedBatch {
	return func(int) []plannedBatch { return []plannedBatch{{0, n - 1, kip1289.AckAccept}} }
}

var (
	shapeSeveralPartitions = shape{topics: 1, partitions: 3, records: 2, groups: 1, acks: accept(2)}
	shapeSeveralTopics     = shape{topics: 2, partitions: 2, records: 2, groups: 1, acks: accept(2)}
	// Batches of 0-1, 3 and 5 of six records: gaps at 2 and 4.
	shapeBatchesWithGaps = shape{topics: 1, partitions: 2, records: 6, groups: 1, acks: func(int) []plannedBatch {
		return []plannedBatch{{0, 1, kip1289.AckAccept}, {3, 3, kip1289.AckAccept}, {5, 5, kip1289.AckAccept}}
	}}
	// Every type in each share-partition, in a different order in each.
	shapeMixedTypes = shape{topics: 1, partitions: 2, records: 3, groups: 1, acks: func(i int) []plannedBatch {
		types := []kip1289.AckType{kip1289.AckAccept, kip1289.AckRelease, kip1289.AckReject}
		if i%2 == 1 {
			types = []kip1289.AckType{kip1289.AckReject, kip1289.AckAccept, kip1289.AckRelease}
		}
		return []plannedBatch{{0, 0, types[0]}, {1, 1, types[1]}, {2, 2, types[2]}}
	}}
	shapeSeveralGroups = shape{topics: 1, partitions: 2, records: 2, groups: 2, acks: accept(2)}
)

// shapeCase is a case that sends one shape in one transaction and ends it
// with commit or abort.
func shapeCase(s shape, commit bool) func(ctx context.Context, e *Env) error {
	return func(ctx context.Context, e *Env) error { return runShape(ctx, e, s, commit) }
}

// shapeGroup is one share group of a shape's run: its member, which acquired
// every record, and the records it holds per share-partition.
type shapeGroup struct {
	name   string
	member *Member
	held   map[SharePart][]int64
}

func runShape(ctx context.Context, e *Env, s shape, commit bool) error {
	parts, err := e.Inputs(ctx, s.topics, s.partitions)
	if err != nil {
		return err
	}
	offsets := map[SharePart][]int64{}
	for _, p := range parts {
		if offsets[p], err = e.ProduceTo(ctx, p, s.records); err != nil {
			return err
		}
	}
	groups := make([]shapeGroup, s.groups)
	for g := range groups {
		name, err := e.ShareGroup(ctx, g)
		if err != nil {
			return err
		}
		groups[g] = shapeGroup{name: name, held: offsets}
		if groups[g].member, err = e.JoinGroup(ctx, fmt.Sprintf("a%d", g), groups[g].name, parts); err != nil {
			return err
		}
		if err := groups[g].member.AcquireAll(ctx, offsets, acquireTimeout); err != nil {
			return err
		}
	}
	t, err := begin(ctx, e, "t", 0)
	if err != nil {
		return err
	}
	p, err := t.Identity(ctx)
	if err != nil {
		return err
	}
	// What each record of each group becomes: its ack type, or none (a gap).
	planned := map[RecordRef]kip1289.AckType{}
	for _, g := range groups {
		if err := want("AddShareAcksToTxn of group "+g.name+" for "+partsWords(parts), t.EnlistParts(ctx, p, g.name, parts), nil); err != nil {
			return err
		}
		var acks []PartAcks
		for i, sp := range parts {
			pa := PartAcks{Part: sp}
			for _, b := range s.acks(i) {
				pa.Batches = append(pa.Batches, batch(offsets[sp][b.first], offsets[sp][b.last], b.typ))
				for _, o := range offsets[sp][b.first : b.last+1] {
					planned[RecordRef{Group: g.name, Part: sp, Offset: o}] = b.typ
				}
			}
			acks = append(acks, pa)
		}
		answers, err := t.AckParts(ctx, p, g.name, acks, g.member.Tags())
		if err != nil {
			return fmt.Errorf("TxnShareAcknowledge of group %s for %s in one request: %w", g.name, partsWords(parts), err)
		}
		for _, sp := range parts {
			if err := want(fmt.Sprintf("TxnShareAcknowledge of group %s, share-partition %s", g.name, sp), answers[sp], nil); err != nil {
				return err
			}
		}
	}
	// Staged means pending: the holder's own plain ack of each acked record
	// is refused. A broker that answered success for a share-partition it did
	// not stage lets the holder release it.
	for _, g := range groups {
		for _, sp := range parts {
			for _, o := range offsets[sp] {
				if _, acked := planned[RecordRef{Group: g.name, Part: sp, Offset: o}]; !acked {
					continue
				}
				if err := want(fmt.Sprintf("group %s: plain RELEASE of %s offset %d, pending in the transaction", g.name, sp, o),
					g.member.AckOne(ctx, sp, o, shareconsumer.Release), kerr.InvalidRecordState); err != nil {
					return err
				}
			}
		}
	}
	end := "commit"
	if commit {
		err = t.Commit(ctx)
	} else {
		end, err = "abort", t.Abort(ctx)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", end, err)
	}
	for _, g := range groups {
		if err := checkShapeOutcome(ctx, e, g, parts, planned, commit); err != nil {
			return fmt.Errorf("after the %s, group %s: %w", end, g.name, err)
		}
	}
	return nil
}

// checkShapeOutcome checks every record of group g after its transaction
// ended: a record acked under a commit is no longer the member's (its plain
// release is refused) and comes back only if RELEASEd; a gap, and everything
// acked under an abort, is the member's again (its release is accepted, once
// the transaction's settlement has reached the share-partition) and comes
// back as the second delivery; what is finalized never comes back. Then the
// member accepts everything that came back and the group drains every
// share-partition.
func checkShapeOutcome(ctx context.Context, e *Env, g shapeGroup, parts []SharePart, planned map[RecordRef]kip1289.AckType, commit bool) error {
	again := map[SharePart][]int64{} // delivered a second time
	final := map[SharePart][]int64{} // never delivered again
	for _, sp := range parts {
		for _, o := range g.held[sp] {
			typ, acked := planned[RecordRef{Group: g.name, Part: sp, Offset: o}]
			switch {
			case acked && commit:
				// The member's own release of a settled record must change
				// nothing: Kafka refuses it, the reference broker skips an
				// ack below its start offset (kfake's processAcks); a
				// broker that lost the ack would let it through, and the
				// record would come back below.
				if err := g.member.AckOne(ctx, sp, o, shareconsumer.Release); err != nil && !errors.Is(err, kerr.InvalidRecordState) {
					return fmt.Errorf("plain RELEASE of %s offset %d, acked %s in the committed transaction: %w", sp, o, typ, err)
				}
				if typ == kip1289.AckRelease {
					again[sp] = append(again[sp], o)
				} else {
					final[sp] = append(final[sp], o)
				}
			default:
				what := "a gap between the batches"
				if acked {
					what = "acked " + typ.String() + " in the aborted transaction"
				}
				err := Eventually(ctx, 20*time.Second, func() error { return g.member.AckOne(ctx, sp, o, shareconsumer.Release) })
				if err != nil {
					return fmt.Errorf("%s offset %d, %s, is not the member's again: its release: %w", sp, o, what, err)
				}
				again[sp] = append(again[sp], o)
			}
		}
	}
	b := g.member
	got, err := b.AcquireAllThen(ctx, again, acquireTimeout, time.Second)
	if err != nil {
		return err
	}
	for _, r := range got {
		sp := SharePart{Topic: r.Topic, Partition: r.Partition}
		if slices.Contains(final[sp], r.Offset) {
			return fmt.Errorf("%s offset %d, finalized by the commit, delivered again (delivery %d)", sp, r.Offset, r.DeliveryCount)
		}
		if r.DeliveryCount != 2 {
			return fmt.Errorf("%s offset %d came back as delivery %d, want 2", sp, r.Offset, r.DeliveryCount)
		}
		if err := b.AckOne(ctx, sp, r.Offset, shareconsumer.Accept); err != nil {
			return fmt.Errorf("accept %s offset %d on its second delivery: %w", sp, r.Offset, err)
		}
	}
	return e.checkPartsDrained(ctx, g.name, b, parts)
}

func partsWords(parts []SharePart) string {
	return fmt.Sprintf("%d share-partitions %v", len(parts), parts)
}
