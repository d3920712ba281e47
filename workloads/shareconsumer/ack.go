package shareconsumer

import (
	"cmp"
	"fmt"
	"slices"
)

// AckType is KIP-932's acknowledge type as it goes on the wire.
type AckType int8

const (
	// Gap is for offsets that are not records; the consumer sends it itself
	// (see the package documentation) and callers have no use for it.
	Gap     AckType = 0
	Accept  AckType = 1
	Release AckType = 2
	Reject  AckType = 3
	// Renew (KIP-1222, ShareAcknowledge v2, Kafka 4.2) extends the record's
	// acquisition lock without settling it. A broker that only speaks v1
	// refuses it.
	Renew AckType = 4
)

func (t AckType) String() string {
	switch t {
	case Gap:
		return "gap"
	case Accept:
		return "accept"
	case Release:
		return "release"
	case Reject:
		return "reject"
	case Renew:
		return "renew"
	}
	return fmt.Sprintf("AckType(%d)", int8(t))
}

// Ack acknowledges the offsets FirstOffset..LastOffset (inclusive) of one
// partition with one type.
type Ack struct {
	Topic       string
	Partition   int32
	FirstOffset int64
	LastOffset  int64
	Type        AckType
}

// AckRecords acknowledges records with t, one Ack per record; Acknowledge
// coalesces contiguous offsets.
func AckRecords(t AckType, recs ...*Record) []Ack {
	acks := make([]Ack, len(recs))
	for i, r := range recs {
		acks[i] = Ack{Topic: r.Topic, Partition: r.Partition, FirstOffset: r.Offset, LastOffset: r.Offset, Type: t}
	}
	return acks
}

// partitionKey names a partition by topic name, as callers do.
type partitionKey struct {
	topic     string
	partition int32
}

// coalesce sorts one partition's acks by offset, merges adjacent ranges of
// one type, and refuses overlaps: an offset acknowledged twice in one
// request is a caller bug the broker would answer with INVALID_REQUEST for
// the whole partition.
func coalesce(acks []Ack) ([]Ack, error) {
	sorted := slices.Clone(acks)
	slices.SortFunc(sorted, func(a, b Ack) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	var out []Ack
	for _, a := range sorted {
		if a.LastOffset < a.FirstOffset || a.FirstOffset < 0 {
			return nil, fmt.Errorf("acknowledge %s/%d: invalid range %d..%d", a.Topic, a.Partition, a.FirstOffset, a.LastOffset)
		}
		if n := len(out); n > 0 {
			prev := &out[n-1]
			if a.FirstOffset <= prev.LastOffset {
				return nil, fmt.Errorf("acknowledge %s/%d: offset %d acknowledged twice", a.Topic, a.Partition, a.FirstOffset)
			}
			if a.FirstOffset == prev.LastOffset+1 && a.Type == prev.Type {
				prev.LastOffset = a.LastOffset
				continue
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// gapAcks turns gap offsets (sorted, distinct) into ranges.
func gapAcks(offsets []int64) []offsetRange {
	var out []offsetRange
	for _, o := range offsets {
		if n := len(out); n > 0 && out[n-1].last+1 == o {
			out[n-1].last = o
			continue
		}
		out = append(out, offsetRange{o, o})
	}
	return out
}
