package shareconsumer

import "time"

// Record is one acquired record. Topic, Partition, Offset and DeliveryCount
// are what an acknowledgement (plain or transactional) names.
type Record struct {
	Topic     string
	TopicID   [16]byte
	Partition int32
	Offset    int64
	// DeliveryCount is how many times the broker has handed this record out,
	// this delivery included (1 on first delivery).
	DeliveryCount int16
	// Broker is the node whose share session acquired the record; its acks
	// only mean something to that broker while it leads the partition.
	Broker int32

	Key       []byte
	Value     []byte
	Headers   []Header
	Timestamp time.Time
	// LeaderEpoch is the batch's partition leader epoch.
	LeaderEpoch int32
	// ProducerID and ProducerEpoch are the writer's (-1 for a producer
	// without an id); Transactional tells whether it wrote in a transaction.
	ProducerID    int64
	ProducerEpoch int16
	Transactional bool
}

// Header is one record header.
type Header struct {
	Key   string
	Value []byte
}
