package ctp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// HangingPartition is a partition whose last stable offset stayed below
// its end while its data was there: a transaction on it neither committed
// nor aborted.
type HangingPartition struct {
	Partition int32 `json:"partition"`
	// LSO is the last stable offset the broker reported; End the end offset
	// the read-back wanted; HighWatermark how far the data went.
	LSO           int64 `json:"lso"`
	End           int64 `json:"end"`
	HighWatermark int64 `json:"high_watermark"`
}

// HangingError is what a read_committed read-back returns when it stalled
// only because of hanging transactions: every partition short of its end
// has its data (high watermark at or past the end) and its last stable
// offset stuck below it, for readStall. The records up to those offsets were
// read (and passed to the caller's f) all the same.
//
// Why not a harness failure: the read-back waits far longer than any
// transaction timeout the suite sets (plus Kafka's 10 s abort sweep), so a
// transaction still open then is one the system under test lost track of,
// a hanging transaction (KIP-890's subject). Seen on kfake: a transactional
// produce that arrived after its transaction was aborted by timeout opened
// a transaction nobody ends (docs/FINDINGS.md 15).
type HangingError struct {
	Topic      string
	Partitions []HangingPartition
}

func (e *HangingError) Error() string {
	parts := make([]string, len(e.Partitions))
	for i, p := range e.Partitions {
		parts[i] = fmt.Sprintf("partition %d stable to %d of %d", p.Partition, p.LSO, p.End)
	}
	return fmt.Sprintf("read topic %s: hanging transaction: %s, nothing read for %s", e.Topic, strings.Join(parts, ", "), readStall)
}

// hangingOf returns the HangingError for a read-back that stalled, or nil
// when some partition short of its end lacks its data too (then the stall
// has another cause) or the read was not read_committed.
func hangingOf(topic string, want map[int32]int64, stable map[int32]bool, seen map[int32]kgo.FetchPartition, readCommitted bool) *HangingError {
	if !readCommitted {
		return nil
	}
	h := &HangingError{Topic: topic}
	for p, end := range want {
		if stable[p] {
			continue
		}
		f, ok := seen[p]
		if !ok || f.HighWatermark < end || f.LastStableOffset >= end {
			return nil
		}
		h.Partitions = append(h.Partitions, HangingPartition{Partition: p, LSO: f.LastStableOffset, End: end, HighWatermark: f.HighWatermark})
	}
	if len(h.Partitions) == 0 {
		return nil
	}
	slices.SortFunc(h.Partitions, func(a, b HangingPartition) int { return int(a.Partition - b.Partition) })
	return h
}
