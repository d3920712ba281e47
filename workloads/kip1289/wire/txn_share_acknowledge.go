package wire

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TxnShareAcknowledgeRequest stores acknowledgements as pending under the
// producer's transaction: WriteTxnMarkers(COMMIT) materializes them
// (ACQUIRED -> ACKNOWLEDGED), ABORT discards them. It mirrors TxnOffsetCommit
// and must follow AddShareAcksToTxn. v0 goes to each share-partition's share
// coordinator, v1 (the same layout) to its partition leader (keys.go).
//
//	TxnShareAcknowledgeRequest (v0-1, flexible)
//	  GroupId string, TransactionalId string, ProducerId int64, ProducerEpoch int16,
//	  Topics [TopicId uuid,
//	          Partitions [Partition int32,
//	                      AcknowledgementBatches [FirstOffset int64, LastOffset int64,
//	                                              AcknowledgeType int8]]]
type TxnShareAcknowledgeRequest struct {
	// APIKey is the configured key; 0 means DefaultTxnShareAcknowledgeKey.
	APIKey  int16
	Version int16

	GroupID         string
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Topics          []TxnShareAcknowledgeRequestTopic

	// MemberID (tag 0) and MemberEpoch (tag 1) are a proposed amendment
	// (see member_tags.go); nil means absent, as the KIP is written.
	MemberID    *string
	MemberEpoch *int32

	UnknownTags Tags
}

// TxnShareAcknowledgeRequestTopic is one topic's acknowledgements.
type TxnShareAcknowledgeRequestTopic struct {
	TopicID     [16]byte
	Partitions  []TxnShareAcknowledgeRequestPartition
	UnknownTags Tags
}

// TxnShareAcknowledgeRequestPartition is one share-partition's batches.
type TxnShareAcknowledgeRequestPartition struct {
	Partition              int32
	AcknowledgementBatches []AcknowledgementBatch
	UnknownTags            Tags
}

// AcknowledgementBatch acknowledges offsets FirstOffset..LastOffset
// (inclusive) with one type: 1 accept, 2 release, 3 reject (KIP-932's
// numbering; 0 gap and 4 renew are not meaningful in a transaction).
type AcknowledgementBatch struct {
	FirstOffset     int64
	LastOffset      int64
	AcknowledgeType int8
	UnknownTags     Tags
}

func (v *TxnShareAcknowledgeRequest) Key() int16 {
	return keyOr(v.APIKey, DefaultTxnShareAcknowledgeKey)
}
func (*TxnShareAcknowledgeRequest) MaxVersion() int16          { return TxnShareAcknowledgeMaxVersion }
func (v *TxnShareAcknowledgeRequest) SetVersion(version int16) { v.Version = version }
func (v *TxnShareAcknowledgeRequest) GetVersion() int16        { return v.Version }
func (*TxnShareAcknowledgeRequest) IsFlexible() bool           { return true }
func (v *TxnShareAcknowledgeRequest) ResponseKind() kmsg.Response {
	return &TxnShareAcknowledgeResponse{APIKey: v.APIKey, Version: v.Version}
}

// RequestWith sends v through r (for example a kgo Broker) and returns the
// typed response.
func (v *TxnShareAcknowledgeRequest) RequestWith(ctx context.Context, r kmsg.Requestor) (*TxnShareAcknowledgeResponse, error) {
	kresp, err := r.Request(ctx, v)
	resp, _ := kresp.(*TxnShareAcknowledgeResponse)
	return resp, err
}

func (v *TxnShareAcknowledgeRequest) AppendTo(dst []byte) []byte {
	w := writer{b: dst}
	w.compactString(v.GroupID)
	w.compactString(v.TransactionalID)
	w.int64(v.ProducerID)
	w.int16(v.ProducerEpoch)
	w.arrayLen(len(v.Topics))
	for _, t := range v.Topics {
		w.uuid(t.TopicID)
		w.arrayLen(len(t.Partitions))
		for _, p := range t.Partitions {
			w.int32(p.Partition)
			w.arrayLen(len(p.AcknowledgementBatches))
			for _, b := range p.AcknowledgementBatches {
				w.int64(b.FirstOffset)
				w.int64(b.LastOffset)
				w.int8(b.AcknowledgeType)
				w.tags(b.UnknownTags)
			}
			w.tags(p.UnknownTags)
		}
		w.tags(t.UnknownTags)
	}
	w.tags(v.memberTags())
	return w.b
}

func (v *TxnShareAcknowledgeRequest) ReadFrom(src []byte) error {
	const msg = "TxnShareAcknowledgeRequest"
	if err := checkVersion(msg, v.Version, TxnShareAcknowledgeMaxVersion); err != nil {
		return err
	}
	r := reader{b: src}
	v.GroupID = r.compactString("GroupId")
	v.TransactionalID = r.compactString("TransactionalId")
	v.ProducerID = r.int64()
	v.ProducerEpoch = r.int16()
	v.Topics = nil
	if n := r.arrayLen("Topics", 18); n > 0 {
		v.Topics = make([]TxnShareAcknowledgeRequestTopic, n)
	}
	for i := range v.Topics {
		t := &v.Topics[i]
		t.TopicID = r.uuid()
		if n := r.arrayLen("Topics.Partitions", 6); n > 0 {
			t.Partitions = make([]TxnShareAcknowledgeRequestPartition, n)
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			p.Partition = r.int32()
			if n := r.arrayLen("Partitions.AcknowledgementBatches", 18); n > 0 {
				p.AcknowledgementBatches = make([]AcknowledgementBatch, n)
			}
			for k := range p.AcknowledgementBatches {
				b := &p.AcknowledgementBatches[k]
				b.FirstOffset = r.int64()
				b.LastOffset = r.int64()
				b.AcknowledgeType = r.int8()
				b.UnknownTags = r.tags()
			}
			p.UnknownTags = r.tags()
			if r.err != nil {
				break
			}
		}
		t.UnknownTags = r.tags()
		if r.err != nil {
			break
		}
	}
	v.MemberID, v.MemberEpoch = nil, nil
	if err := v.takeMemberTags(r.tags()); err != nil {
		r.fail(err)
	}
	return r.done(msg)
}

// TxnShareAcknowledgeResponse mirrors TxnOffsetCommitResponse: one error code
// per share-partition.
//
//	TxnShareAcknowledgeResponse (v0-1, flexible)
//	  ThrottleTimeMs int32,
//	  Topics [TopicId uuid, Partitions [Partition int32, ErrorCode int16]]
type TxnShareAcknowledgeResponse struct {
	APIKey  int16
	Version int16

	ThrottleMillis int32
	Topics         []TxnShareAcknowledgeResponseTopic

	UnknownTags Tags
}

// TxnShareAcknowledgeResponseTopic is one topic's results.
type TxnShareAcknowledgeResponseTopic struct {
	TopicID     [16]byte
	Partitions  []TxnShareAcknowledgeResponsePartition
	UnknownTags Tags
}

// TxnShareAcknowledgeResponsePartition is one share-partition's result:
// NONE, or e.g. NOT_COORDINATOR (v0), NOT_LEADER_OR_FOLLOWER (v1),
// PRODUCER_FENCED, INVALID_PRODUCER_EPOCH, INVALID_RECORD_STATE,
// UNKNOWN_TOPIC_ID.
type TxnShareAcknowledgeResponsePartition struct {
	Partition   int32
	ErrorCode   int16
	UnknownTags Tags
}

func (v *TxnShareAcknowledgeResponse) Key() int16 {
	return keyOr(v.APIKey, DefaultTxnShareAcknowledgeKey)
}
func (*TxnShareAcknowledgeResponse) MaxVersion() int16          { return TxnShareAcknowledgeMaxVersion }
func (v *TxnShareAcknowledgeResponse) SetVersion(version int16) { v.Version = version }
func (v *TxnShareAcknowledgeResponse) GetVersion() int16        { return v.Version }
func (*TxnShareAcknowledgeResponse) IsFlexible() bool           { return true }
func (v *TxnShareAcknowledgeResponse) Throttle() (int32, bool)  { return v.ThrottleMillis, true }
func (v *TxnShareAcknowledgeResponse) SetThrottle(throttleMillis int32) {
	v.ThrottleMillis = throttleMillis
}
func (v *TxnShareAcknowledgeResponse) RequestKind() kmsg.Request {
	return &TxnShareAcknowledgeRequest{APIKey: v.APIKey, Version: v.Version}
}

func (v *TxnShareAcknowledgeResponse) AppendTo(dst []byte) []byte {
	w := writer{b: dst}
	w.int32(v.ThrottleMillis)
	w.arrayLen(len(v.Topics))
	for _, t := range v.Topics {
		w.uuid(t.TopicID)
		w.arrayLen(len(t.Partitions))
		for _, p := range t.Partitions {
			w.int32(p.Partition)
			w.int16(p.ErrorCode)
			w.tags(p.UnknownTags)
		}
		w.tags(t.UnknownTags)
	}
	w.tags(v.UnknownTags)
	return w.b
}

func (v *TxnShareAcknowledgeResponse) ReadFrom(src []byte) error {
	const msg = "TxnShareAcknowledgeResponse"
	if err := checkVersion(msg, v.Version, TxnShareAcknowledgeMaxVersion); err != nil {
		return err
	}
	r := reader{b: src}
	v.ThrottleMillis = r.int32()
	v.Topics = nil
	if n := r.arrayLen("Topics", 18); n > 0 {
		v.Topics = make([]TxnShareAcknowledgeResponseTopic, n)
	}
	for i := range v.Topics {
		t := &v.Topics[i]
		t.TopicID = r.uuid()
		if n := r.arrayLen("Topics.Partitions", 7); n > 0 {
			t.Partitions = make([]TxnShareAcknowledgeResponsePartition, n)
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			p.Partition = r.int32()
			p.ErrorCode = r.int16()
			p.UnknownTags = r.tags()
		}
		t.UnknownTags = r.tags()
		if r.err != nil {
			break
		}
	}
	v.UnknownTags = r.tags()
	return r.done(msg)
}
