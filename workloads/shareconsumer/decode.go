package shareconsumer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Record batch v2 attribute bits.
const (
	attrCodecMask     = 0x07
	attrLogAppendTime = 0x08
	attrTransactional = 0x10
	attrControl       = 0x20
)

// batchHeaderLen is the v2 batch header up to and including the record count;
// lengthFieldEnd is where the batch's own Length field ends (the offset
// 8 bytes and the length 4), from which Length counts.
const (
	batchHeaderLen = 61
	lengthFieldEnd = 12
	crcDataStart   = 21 // the CRC covers attributes to the end
	magicOffset    = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decompressor is kgo's, the same that its own consumers use: it knows every
// codec Kafka writes (gzip, snappy incl. xerial framing, lz4, zstd).
var decompressor = kgo.DefaultDecompressor()

// decodedRecord is a data record of a batch with the batch fields a Record
// needs; the offset filter against the acquired ranges runs on these.
type decodedRecord struct {
	offset        int64
	key, value    []byte
	headers       []Header
	timestamp     time.Time
	leaderEpoch   int32
	producerID    int64
	producerEpoch int16
	transactional bool
}

// decodeBatches decodes the data records of a partition's record data
// (concatenated v2 record batches), and returns the offset ranges of the
// batches it decoded completely (control batches included), from which gaps
// are found. Control batches yield no records. A batch
// cut short at the end of the data is dropped without error: brokers may
// truncate the last batch to fit the byte limits, and its acquired offsets
// then come back as gaps. A corrupt or pre-v2 batch is an error; the
// records decoded before it are returned with it.
func decodeBatches(data []byte) (out []decodedRecord, covered []offsetRange, err error) {
	for len(data) > 0 {
		if len(data) < lengthFieldEnd {
			return out, covered, nil
		}
		length := int32(binary.BigEndian.Uint32(data[8:12]))
		size := lengthFieldEnd + int(length)
		if size < batchHeaderLen {
			return out, covered, fmt.Errorf("decode record batch: invalid length %d", length)
		}
		if len(data) < size {
			return out, covered, nil // truncated last batch
		}
		raw := data[:size]
		data = data[size:]
		if magic := int8(raw[magicOffset]); magic != 2 {
			return out, covered, fmt.Errorf("decode record batch: magic %d, only v2 is supported", magic)
		}
		var b kmsg.RecordBatch
		if err := b.ReadFrom(raw); err != nil {
			return out, covered, fmt.Errorf("decode record batch: %w", err)
		}
		if crc := crc32.Checksum(raw[crcDataStart:], castagnoli); int32(crc) != b.CRC {
			return out, covered, fmt.Errorf("decode record batch at offset %d: CRC mismatch", b.FirstOffset)
		}
		span := offsetRange{b.FirstOffset, b.FirstOffset + int64(b.LastOffsetDelta)}
		if b.Attributes&attrControl != 0 {
			covered = append(covered, span)
			continue
		}
		recs, err := decodeRecords(&b)
		out = append(out, recs...)
		if err != nil {
			return out, covered, err
		}
		covered = append(covered, span)
	}
	return out, covered, nil
}

// decodeRecords decompresses one batch's records and decodes them.
func decodeRecords(b *kmsg.RecordBatch) ([]decodedRecord, error) {
	raw, err := decompressor.Decompress(b.Records, kgo.CompressionCodecType(b.Attributes&attrCodecMask))
	if err != nil {
		return nil, fmt.Errorf("decompress record batch at offset %d: %w", b.FirstOffset, err)
	}
	out := make([]decodedRecord, 0, max(b.NumRecords, 0))
	for i := int32(0); i < b.NumRecords; i++ {
		length, n := binary.Varint(raw)
		if n <= 0 || length < 0 || int64(len(raw)-n) < length {
			return out, fmt.Errorf("decode record %d of batch at offset %d: %w", i, b.FirstOffset, errShortRecord)
		}
		var r kmsg.Record
		if err := r.ReadFrom(raw[:n+int(length)]); err != nil {
			return out, fmt.Errorf("decode record %d of batch at offset %d: %w", i, b.FirstOffset, err)
		}
		raw = raw[n+int(length):]
		ts := b.FirstTimestamp + r.TimestampDelta64
		if b.Attributes&attrLogAppendTime != 0 {
			ts = b.MaxTimestamp
		}
		d := decodedRecord{
			offset:        b.FirstOffset + int64(r.OffsetDelta),
			key:           r.Key,
			value:         r.Value,
			timestamp:     time.UnixMilli(ts),
			leaderEpoch:   b.PartitionLeaderEpoch,
			producerID:    b.ProducerID,
			producerEpoch: b.ProducerEpoch,
			transactional: b.Attributes&attrTransactional != 0,
		}
		for _, h := range r.Headers {
			d.headers = append(d.headers, Header{Key: h.Key, Value: h.Value})
		}
		out = append(out, d)
	}
	return out, nil
}

var errShortRecord = errors.New("record length past the end of the batch")
