package ledger

import "fmt"

// Book is what a worker knows of the ledger: for each record, the offset of
// the first committed entry that holds it (the winner). It holds only
// committed entries, applied in ledger order; read_committed reading
// guarantees both. Its answers are the realization's decision rules.
type Book struct {
	winner map[RecordID]int64
	// applied is one past the last ledger offset applied: entries must come
	// in increasing order (a read that went backwards is a bug, and would
	// let a later entry win).
	applied int64
}

// NewBook is an empty book.
func NewBook() *Book { return &Book{winner: make(map[RecordID]int64)} }

// Apply records a committed entry at offset. The first committed entry for a
// record wins; later ones for the same record (which validation makes abort,
// so they only appear if something is broken) change nothing.
func (b *Book) Apply(offset int64, e Entry) error {
	if offset < b.applied {
		return errOutOfOrder{offset, b.applied}
	}
	b.applied = offset + 1
	for _, id := range e.Records {
		if _, ok := b.winner[id]; !ok {
			b.winner[id] = offset
		}
	}
	return nil
}

// Committed returns the ids that some committed entry holds: their acks are
// committed, so the pre-check accepts them without processing.
func (b *Book) Committed(ids []RecordID) []RecordID {
	var out []RecordID
	for _, id := range ids {
		if _, ok := b.winner[id]; ok {
			out = append(out, id)
		}
	}
	return out
}

// Conflicts returns the ids that a committed entry below own holds: another
// transaction committed their acks first, so the transaction whose entry is
// at own must abort. An entry above own cannot have won (its writer's
// validation waits for own's outcome), so it is no conflict.
func (b *Book) Conflicts(ids []RecordID, own int64) []RecordID {
	var out []RecordID
	for _, id := range ids {
		if w, ok := b.winner[id]; ok && w < own {
			out = append(out, id)
		}
	}
	return out
}

// Prune forgets records below their share-partition's start offset: the share
// group is done with them, so they are never delivered again and no batch can
// ask about them. starts maps "topic" -> partition -> start offset;
// partitions not in it are kept.
func (b *Book) Prune(starts map[string]map[int32]int64) int {
	n := 0
	for id := range b.winner {
		if start, ok := starts[id.Topic][id.Partition]; ok && id.Offset < start {
			delete(b.winner, id)
			n++
		}
	}
	return n
}

// Len is how many records the book remembers.
func (b *Book) Len() int { return len(b.winner) }

type errOutOfOrder struct{ offset, applied int64 }

func (e errOutOfOrder) Error() string {
	return fmt.Sprintf("ledger entry at offset %d applied after offset %d", e.offset, e.applied-1)
}
