package kafkatoxic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A match is a predicate on a whole request frame, for a toxic whose
// action depends on what the request says, not only on its api key
// (Spec.Match). Such a toxic holds each frame of its api key until the frame
// is complete, judges it, and then acts on it or lets it pass: a frame-sized
// delay on that connection, which is why only a toxic that names a match
// pays it.
//
// The matches, as Spec.Match spells them:
//
//   - "share-write-above-start": a WriteShareGroupState (85) with a
//     share-partition whose lowest state batch begins above the start
//     offset it writes: acknowledgements of records above others still
//     unacknowledged, the write whose late landing can lower a share
//     coordinator's start offset (apache/kafka #23074).
//   - "share-write=P:S:F": a WriteShareGroupState with a share-partition P
//     whose start offset is S and whose lowest state batch begins at F: one
//     write again, as the share-partition leader's persister resends it.
type match struct {
	aboveStart bool
	partition  int32
	start      int64
	first      int64
}

// WriteShareGroupStateKey is the api key of WriteShareGroupState: a
// share-partition leader's write of its share-partition state to the share
// coordinator.
const WriteShareGroupStateKey int16 = 85

// Matches the spec spells.
const (
	MatchShareWriteAboveStart = "share-write-above-start"
	matchShareWritePrefix     = "share-write="
)

// ShareWriteMatch is the match of one share-partition write: partition p
// with start offset start and lowest state batch at first.
func ShareWriteMatch(p int32, start, first int64) string {
	return fmt.Sprintf("%s%d:%d:%d", matchShareWritePrefix, p, start, first)
}

// parseMatch reads a match as Spec.Match spells it.
func parseMatch(s string) (match, error) {
	if s == MatchShareWriteAboveStart {
		return match{aboveStart: true}, nil
	}
	rest, ok := strings.CutPrefix(s, matchShareWritePrefix)
	if !ok {
		return match{}, fmt.Errorf("unknown match %q (want %s or %sPARTITION:START:FIRST)", s, MatchShareWriteAboveStart, matchShareWritePrefix)
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 {
		return match{}, fmt.Errorf("match %q: want %sPARTITION:START:FIRST", s, matchShareWritePrefix)
	}
	p, err1 := strconv.ParseInt(parts[0], 10, 32)
	start, err2 := strconv.ParseInt(parts[1], 10, 64)
	first, err3 := strconv.ParseInt(parts[2], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return match{}, fmt.Errorf("match %q: %w", s, err)
	}
	return match{partition: int32(p), start: start, first: first}, nil
}

// apiKey is the api key every match is about.
func (m match) apiKey() int16 { return WriteShareGroupStateKey }

// matches says whether a whole request frame (size field included) is one
// m names. A frame that does not parse does not match.
func (m match) matches(frame []byte) bool {
	req, err := ShareWriteOf(frame)
	if err != nil {
		return false
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			first, ok := lowestBatch(p)
			if !ok {
				continue
			}
			switch {
			case m.aboveStart && first > p.StartOffset:
				return true
			case !m.aboveStart && p.Partition == m.partition && p.StartOffset == m.start && first == m.first:
				return true
			}
		}
	}
	return false
}

// lowestBatch is the first offset of a written partition's lowest state batch.
func lowestBatch(p kmsg.WriteShareGroupStateRequestTopicPartition) (int64, bool) {
	if len(p.StateBatches) == 0 {
		return 0, false
	}
	first := p.StateBatches[0].FirstOffset
	for _, b := range p.StateBatches[1:] {
		first = min(first, b.FirstOffset)
	}
	return first, true
}

// ShareWrite is one share-partition of a WriteShareGroupState as a fault
// reads it from a captured frame.
type ShareWrite struct {
	Partition   int32
	LeaderEpoch int32
	StartOffset int64
	// First is the lowest state batch's first offset, Last the highest
	// batch's last offset.
	First, Last int64
	// DeliveryCompleteCount is the count the write carries (KIP-1226, v1;
	// -1 where it carries none).
	DeliveryCompleteCount int32
}

// ShareWritesAboveStart are the share-partitions of a captured
// WriteShareGroupState frame whose lowest state batch begins above the
// start offset written.
func ShareWritesAboveStart(frame []byte) ([]ShareWrite, error) {
	req, err := ShareWriteOf(frame)
	if err != nil {
		return nil, err
	}
	var out []ShareWrite
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			first, ok := lowestBatch(p)
			if !ok || first <= p.StartOffset {
				continue
			}
			last := first
			for _, b := range p.StateBatches {
				last = max(last, b.LastOffset)
			}
			out = append(out, ShareWrite{Partition: p.Partition, LeaderEpoch: p.LeaderEpoch, StartOffset: p.StartOffset, First: first, Last: last,
				DeliveryCompleteCount: p.DeliveryCompleteCount})
		}
	}
	return out, nil
}

// ShareWriteOf decodes a whole WriteShareGroupState request frame: the size
// field, the request header (v2: flexible, as every version of this api
// is) and the body.
func ShareWriteOf(frame []byte) (*kmsg.WriteShareGroupStateRequest, error) {
	h, err := ParseHeader(Requests, frame)
	if err != nil {
		return nil, err
	}
	if h.APIKey != WriteShareGroupStateKey {
		return nil, fmt.Errorf("decode WriteShareGroupState: api key %d", h.APIKey)
	}
	if len(frame) < h.FrameLen() {
		return nil, fmt.Errorf("decode WriteShareGroupState: %d of %d bytes", len(frame), h.FrameLen())
	}
	b := frame[requestHeaderLen:h.FrameLen()]
	// client id: a nullable int16-length string, then the header's tags.
	if len(b) < 2 {
		return nil, errors.New("decode WriteShareGroupState: short header")
	}
	n := int(int16(binary.BigEndian.Uint16(b)))
	b = b[2:]
	if n > 0 {
		if len(b) < n {
			return nil, errors.New("decode WriteShareGroupState: short client id")
		}
		b = b[n:]
	}
	if b, err = skipTags(b); err != nil {
		return nil, fmt.Errorf("decode WriteShareGroupState header: %w", err)
	}
	req := kmsg.NewPtrWriteShareGroupStateRequest()
	req.SetVersion(h.APIVersion)
	if err := req.ReadFrom(b); err != nil {
		return nil, fmt.Errorf("decode WriteShareGroupState v%d: %w", h.APIVersion, err)
	}
	return req, nil
}

// skipTags skips a flexible header's tagged fields.
func skipTags(b []byte) ([]byte, error) {
	count, n := binary.Uvarint(b)
	if n <= 0 {
		return nil, errors.New("bad tag count")
	}
	b = b[n:]
	for range count {
		if _, n = binary.Uvarint(b); n <= 0 {
			return nil, errors.New("bad tag")
		}
		b = b[n:]
		size, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < size {
			return nil, errors.New("bad tag size")
		}
		b = b[n+int(size):]
	}
	return b, nil
}

// LastShareWrite is the last entry for share-partition p in a captured
// WriteShareGroupState frame (a persister that combined several writes of
// one share-partition into one request sends them in order, and the share
// coordinator applies them in order: the last one's start offset is the one
// that stays), and how many entries the frame has for p.
func LastShareWrite(frame []byte, p int32) (ShareWrite, int, error) {
	req, err := ShareWriteOf(frame)
	if err != nil {
		return ShareWrite{}, 0, err
	}
	var last ShareWrite
	n := 0
	for _, t := range req.Topics {
		for _, tp := range t.Partitions {
			if tp.Partition != p {
				continue
			}
			n++
			first, _ := lowestBatch(tp)
			last = ShareWrite{Partition: p, LeaderEpoch: tp.LeaderEpoch, StartOffset: tp.StartOffset, First: first, Last: first,
				DeliveryCompleteCount: tp.DeliveryCompleteCount}
			for _, b := range tp.StateBatches {
				last.Last = max(last.Last, b.LastOffset)
			}
		}
	}
	return last, n, nil
}
