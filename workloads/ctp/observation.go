package ctp

import (
	"github.com/sharechaos/sharechaos/internal/history"
)

// AckMode is how a worker acknowledges what it processed.
type AckMode string

const (
	// Implicit: the next poll accepts the previous batch (kgo's default).
	Implicit AckMode = "implicit"
	// Explicit: ACCEPT after the output transaction commits, RELEASE after an
	// abort or a commit of unknown outcome.
	Explicit AckMode = "explicit"
	// Transactional: the acks are part of the output transaction (KIP-1289).
	Transactional AckMode = "transactional"
)

// Modes lists the ack modes in the order reports show them.
var Modes = []AckMode{Transactional, Explicit, Implicit}

// Input is one seeded input record as read back from the input topic.
type Input struct {
	ID        string
	Partition int32
	Offset    int64
}

// Output is one output record visible to a read_committed consumer.
type Output struct {
	Key       string
	Value     string
	Src       string // header src
	Worker    string // header worker
	Txn       int64  // header txn
	Partition int32
	Offset    int64
}

// Observation is everything the checker judges a cell by: what went in, what
// came out (read_committed), where the share group ended, and the histories.
type Observation struct {
	Mode AckMode
	// Realization is "" for implicit and explicit, "ledger" or "native".
	Realization string
	// InputTopic is the topic the inputs were read from (outputs' src headers
	// must name it); empty in older stored observations.
	InputTopic string
	Inputs     []Input
	Outputs    []Output
	// ShareStart is each input partition's share-partition start offset after
	// the drain as the suite judges by it: the start offset
	// DescribeShareGroupOffsets reported (ShareStartReported), or the end
	// offset where a rule says the partition is done (ShareStartRule);
	// absent when it could not be read.
	ShareStart map[int32]int64
	// ShareStartReported is each input partition's start offset as Kafka
	// reported it; nil in observations stored before it was kept (unknown).
	ShareStartReported map[int32]int64
	// ShareStartRule names, for each partition whose ShareStart is not
	// what Kafka reported, the rule that moved it (RuleLagZeroIsDone).
	ShareStartRule map[int32]string
	// InputEnd is each input partition's end offset (high watermark).
	InputEnd map[int32]int64
	// DeliveryLimit is the group's delivery-count limit (records that reached
	// it without output were archived).
	DeliveryLimit int32
	// HangingOutputs are output partitions whose last stable offset stayed
	// below their end (HangingError): the outputs past it could not be read.
	HangingOutputs []HangingPartition `json:",omitempty"`
	// Poison is the rule of the inputs no worker could process (nil: none);
	// DLQTopic the group's dead-letter topic ("" when it has none) and DLQ
	// what it held after the drain.
	Poison   *Poison
	DLQTopic string
	DLQ      []DLQRecord
	History  history.History
}
