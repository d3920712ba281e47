package ctp

import (
	"context"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The headers Kafka's share-group dead-letter queue (KIP-1191, Kafka 4.4)
// puts on each record it writes (ShareGroupDLQStateManager's
// HEADER_DLQ_ERRORS_*): where the record came from and why.
const (
	HeaderDLQTopic         = "__dlq.errors.topic"
	HeaderDLQPartition     = "__dlq.errors.partition"
	HeaderDLQOffset        = "__dlq.errors.offset"
	HeaderDLQGroup         = "__dlq.errors.group"
	HeaderDLQDeliveryCount = "__dlq.errors.delivery.count"
	HeaderDLQMessage       = "__dlq.errors.message"
)

// DLQRecord is one record of a cell's dead-letter topic, as its headers and
// (with errors.deadletterqueue.copy.record.enable) its copied key say.
type DLQRecord struct {
	// Key is the copied record's key (the input id), "" without a copy.
	Key string `json:"key,omitempty"`
	// Topic, Partition and Offset name the input record it stands for.
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Group     string `json:"group,omitempty"`
	// DeliveryCount and Message are Kafka's words for why.
	DeliveryCount string `json:"delivery_count,omitempty"`
	Message       string `json:"message,omitempty"`
	// At is the record's own offset in the dead-letter topic.
	At int64 `json:"at"`
}

// DLQRecordOf reads a dead-letter record's headers.
func DLQRecordOf(r *kgo.Record) DLQRecord {
	d := DLQRecord{Key: string(r.Key), Offset: -1, Partition: -1, At: r.Offset}
	for _, h := range r.Headers {
		v := string(h.Value)
		switch h.Key {
		case HeaderDLQTopic:
			d.Topic = v
		case HeaderDLQPartition:
			p, _ := strconv.ParseInt(v, 10, 32)
			d.Partition = int32(p)
		case HeaderDLQOffset:
			d.Offset, _ = strconv.ParseInt(v, 10, 64)
		case HeaderDLQGroup:
			d.Group = v
		case HeaderDLQDeliveryCount:
			d.DeliveryCount = v
		case HeaderDLQMessage:
			d.Message = v
		}
	}
	return d
}

// ReadDLQ reads the dead-letter topic until it holds at least want records
// or wait passed: the broker writes dead letters in the background after
// it archived the records, so the drain can end before they land. It then
// reads once more, so a record written twice is seen.
func ReadDLQ(ctx context.Context, bootstrap []string, topic string, want int, wait time.Duration, extra ...kgo.Opt) ([]DLQRecord, error) {
	deadline := time.Now().Add(wait)
	for {
		rs, err := ReadTopic(ctx, bootstrap, topic, false, extra...)
		if err != nil {
			return nil, err
		}
		if len(rs) >= want || time.Now().After(deadline) || ctx.Err() != nil {
			out := make([]DLQRecord, len(rs))
			for i, r := range rs {
				out[i] = DLQRecordOf(r)
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
