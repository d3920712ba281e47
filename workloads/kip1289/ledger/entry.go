package ledger

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// RecordID names one input record: its topic, partition and offset. Its
// string form is ctp.Src ("topic/partition/offset").
type RecordID struct {
	Topic     string
	Partition int32
	Offset    int64
}

func (id RecordID) String() string { return ctp.Src(id.Topic, id.Partition, id.Offset) }

// IDOf is a polled record's id.
func IDOf(r *kgo.Record) RecordID { return RecordID{r.Topic, r.Partition, r.Offset} }

// Entry is one transaction's ledger record.
type Entry struct {
	Worker  string
	Seq     int64
	Records []RecordID
}

// Key is "worker/seq".
func (e Entry) Key() string { return e.Worker + "/" + strconv.FormatInt(e.Seq, 10) }

// Record encodes e as a ledger record for topic/partition.
func (e Entry) Record(topic string, partition int32) *kgo.Record {
	lines := make([]string, len(e.Records))
	for i, id := range e.Records {
		lines[i] = id.String()
	}
	return &kgo.Record{
		Topic:     topic,
		Partition: partition,
		Key:       []byte(e.Key()),
		Value:     []byte(strings.Join(lines, "\n")),
	}
}

// DecodeEntry reads a ledger record back.
func DecodeEntry(r *kgo.Record) (Entry, error) {
	key := string(r.Key)
	i := strings.LastIndexByte(key, '/')
	if i <= 0 {
		return Entry{}, fmt.Errorf("decode ledger entry at %d: key %q is not worker/seq", r.Offset, key)
	}
	seq, err := strconv.ParseInt(key[i+1:], 10, 64)
	if err != nil {
		return Entry{}, fmt.Errorf("decode ledger entry at %d: key %q: %w", r.Offset, key, err)
	}
	e := Entry{Worker: key[:i], Seq: seq}
	if len(r.Value) == 0 {
		return e, nil
	}
	for _, line := range strings.Split(string(r.Value), "\n") {
		topic, partition, offset, err := ctp.ParseSrc(line)
		if err != nil {
			return Entry{}, fmt.Errorf("decode ledger entry %s at %d: %w", key, r.Offset, err)
		}
		e.Records = append(e.Records, RecordID{topic, partition, offset})
	}
	return e, nil
}
