package kip1289

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kgo"
)

// AckType is KIP-932's acknowledge type, as it goes on the wire.
type AckType int8

const (
	AckAccept  AckType = 1
	AckRelease AckType = 2
	AckReject  AckType = 3
)

func (t AckType) String() string {
	switch t {
	case AckAccept:
		return "accept"
	case AckRelease:
		return "release"
	case AckReject:
		return "reject"
	}
	return fmt.Sprintf("AckType(%d)", int8(t))
}

// Valid reports whether t may go into a transaction: gap (0) and renew (4)
// are not acknowledgements of processing.
func (t AckType) Valid() bool { return t >= AckAccept && t <= AckReject }

// TopicPartition names a share-partition's input partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// String is "topic/partition".
func (tp TopicPartition) String() string { return fmt.Sprintf("%s/%d", tp.Topic, tp.Partition) }

// AcknowledgementBatch acknowledges FirstOffset..LastOffset (inclusive) with
// one type.
type AcknowledgementBatch struct {
	FirstOffset int64
	LastOffset  int64
	AckType     AckType
}

// ShareAcknowledgements are the batches per topic-partition, sorted by offset,
// non-overlapping, with adjacent batches of the same type coalesced.
type ShareAcknowledgements map[TopicPartition][]AcknowledgementBatch

// FromRecords acknowledges records with t (the KIP's fromRecords): contiguous
// offsets of one partition become one batch. Records may come in any order and
// from several partitions; a record listed twice counts once.
func FromRecords(records []*kgo.Record, t AckType) (ShareAcknowledgements, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("acknowledge records: %v cannot go into a transaction", t)
	}
	acks := make(ShareAcknowledgements)
	for _, r := range records {
		tp := TopicPartition{r.Topic, r.Partition}
		acks[tp] = append(acks[tp], AcknowledgementBatch{r.Offset, r.Offset, t})
	}
	return acks.normalize()
}

// Merge combines a and b (for example accepted and rejected records of one
// batch). The same offset acknowledged with two different types is an error.
func (a ShareAcknowledgements) Merge(b ShareAcknowledgements) (ShareAcknowledgements, error) {
	out := make(ShareAcknowledgements, len(a)+len(b))
	for _, m := range []ShareAcknowledgements{a, b} {
		for tp, bs := range m {
			out[tp] = append(out[tp], bs...)
		}
	}
	return out.normalize()
}

// Len is the number of offsets acknowledged.
func (a ShareAcknowledgements) Len() int64 {
	var n int64
	for _, bs := range a {
		for _, b := range bs {
			n += b.LastOffset - b.FirstOffset + 1
		}
	}
	return n
}

// Partitions lists the topic-partitions in a stable order.
func (a ShareAcknowledgements) Partitions() []TopicPartition {
	tps := make([]TopicPartition, 0, len(a))
	for tp := range a {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, func(x, y TopicPartition) int {
		return cmp.Or(cmp.Compare(x.Topic, y.Topic), cmp.Compare(x.Partition, y.Partition))
	})
	return tps
}

// normalize sorts, checks and coalesces every partition's batches.
func (a ShareAcknowledgements) normalize() (ShareAcknowledgements, error) {
	out := make(ShareAcknowledgements, len(a))
	for tp, bs := range a {
		bs = slices.Clone(bs)
		for _, b := range bs {
			if b.FirstOffset < 0 || b.LastOffset < b.FirstOffset || !b.AckType.Valid() {
				return nil, fmt.Errorf("acknowledge %s/%d: bad batch %+v", tp.Topic, tp.Partition, b)
			}
		}
		slices.SortFunc(bs, func(x, y AcknowledgementBatch) int {
			return cmp.Or(cmp.Compare(x.FirstOffset, y.FirstOffset), cmp.Compare(x.LastOffset, y.LastOffset))
		})
		merged := bs[:1]
		for _, b := range bs[1:] {
			last := &merged[len(merged)-1]
			switch {
			case b.FirstOffset <= last.LastOffset && b.AckType != last.AckType:
				return nil, fmt.Errorf("acknowledge %s/%d: offset %d is both %v and %v",
					tp.Topic, tp.Partition, b.FirstOffset, last.AckType, b.AckType)
			case b.FirstOffset <= last.LastOffset+1 && b.AckType == last.AckType:
				last.LastOffset = max(last.LastOffset, b.LastOffset)
			default:
				merged = append(merged, b)
			}
		}
		out[tp] = merged
	}
	return out, nil
}
