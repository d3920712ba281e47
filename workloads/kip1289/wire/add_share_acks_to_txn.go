package wire

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// AddShareAcksToTxnRequest enlists a share group's acknowledgements in a
// transaction. The transaction coordinator adds the __share_group_state
// partitions that hold the listed share-partitions to the transaction, as
// AddOffsetsToTxn adds a __consumer_offsets partition; it must precede
// TxnShareAcknowledge.
//
//	AddShareAcksToTxnRequest (v0, flexible)
//	  TransactionalId string, ProducerId int64, ProducerEpoch int16,
//	  GroupId string, Topics [Name string, Partitions [int32]]
type AddShareAcksToTxnRequest struct {
	// APIKey is the configured key; 0 means DefaultAddShareAcksToTxnKey.
	APIKey  int16
	Version int16

	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	GroupID         string
	Topics          []AddShareAcksToTxnRequestTopic

	UnknownTags Tags
}

// AddShareAcksToTxnRequestTopic names the input partitions whose acks join the
// transaction.
type AddShareAcksToTxnRequestTopic struct {
	Topic       string
	Partitions  []int32
	UnknownTags Tags
}

func (v *AddShareAcksToTxnRequest) Key() int16 {
	return keyOr(v.APIKey, DefaultAddShareAcksToTxnKey)
}
func (*AddShareAcksToTxnRequest) MaxVersion() int16          { return AddShareAcksToTxnVersion }
func (v *AddShareAcksToTxnRequest) SetVersion(version int16) { v.Version = version }
func (v *AddShareAcksToTxnRequest) GetVersion() int16        { return v.Version }
func (*AddShareAcksToTxnRequest) IsFlexible() bool           { return true }
func (v *AddShareAcksToTxnRequest) ResponseKind() kmsg.Response {
	return &AddShareAcksToTxnResponse{APIKey: v.APIKey, Version: v.Version}
}

// RequestWith sends v through r (for example a kgo Broker) and returns the
// typed response.
func (v *AddShareAcksToTxnRequest) RequestWith(ctx context.Context, r kmsg.Requestor) (*AddShareAcksToTxnResponse, error) {
	kresp, err := r.Request(ctx, v)
	resp, _ := kresp.(*AddShareAcksToTxnResponse)
	return resp, err
}

func (v *AddShareAcksToTxnRequest) AppendTo(dst []byte) []byte {
	w := writer{b: dst}
	w.compactString(v.TransactionalID)
	w.int64(v.ProducerID)
	w.int16(v.ProducerEpoch)
	w.compactString(v.GroupID)
	w.arrayLen(len(v.Topics))
	for _, t := range v.Topics {
		w.compactString(t.Topic)
		w.arrayLen(len(t.Partitions))
		for _, p := range t.Partitions {
			w.int32(p)
		}
		w.tags(t.UnknownTags)
	}
	w.tags(v.UnknownTags)
	return w.b
}

func (v *AddShareAcksToTxnRequest) ReadFrom(src []byte) error {
	const msg = "AddShareAcksToTxnRequest"
	if err := checkVersion(msg, v.Version, AddShareAcksToTxnVersion); err != nil {
		return err
	}
	r := reader{b: src}
	v.TransactionalID = r.compactString("TransactionalId")
	v.ProducerID = r.int64()
	v.ProducerEpoch = r.int16()
	v.GroupID = r.compactString("GroupId")
	n := r.arrayLen("Topics", 3) // name, partitions, tags: one byte each at least
	v.Topics = nil
	if n > 0 {
		v.Topics = make([]AddShareAcksToTxnRequestTopic, n)
	}
	for i := range v.Topics {
		t := &v.Topics[i]
		t.Topic = r.compactString("Topics.Name")
		np := r.arrayLen("Topics.Partitions", 4)
		if np > 0 {
			t.Partitions = make([]int32, np)
		}
		for j := range t.Partitions {
			t.Partitions[j] = r.int32()
		}
		t.UnknownTags = r.tags()
		if r.err != nil {
			break
		}
	}
	v.UnknownTags = r.tags()
	return r.done(msg)
}

// AddShareAcksToTxnResponse mirrors AddOffsetsToTxnResponse.
//
//	AddShareAcksToTxnResponse (v0, flexible)
//	  ThrottleTimeMs int32, ErrorCode int16
type AddShareAcksToTxnResponse struct {
	APIKey  int16
	Version int16

	ThrottleMillis int32
	// ErrorCode: NONE, or what AddOffsetsToTxn can return (NOT_COORDINATOR,
	// CONCURRENT_TRANSACTIONS, PRODUCER_FENCED, INVALID_PRODUCER_EPOCH,
	// INVALID_TXN_STATE, TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
	// GROUP_AUTHORIZATION_FAILED, ...).
	ErrorCode int16

	UnknownTags Tags
}

func (v *AddShareAcksToTxnResponse) Key() int16 {
	return keyOr(v.APIKey, DefaultAddShareAcksToTxnKey)
}
func (*AddShareAcksToTxnResponse) MaxVersion() int16          { return AddShareAcksToTxnVersion }
func (v *AddShareAcksToTxnResponse) SetVersion(version int16) { v.Version = version }
func (v *AddShareAcksToTxnResponse) GetVersion() int16        { return v.Version }
func (*AddShareAcksToTxnResponse) IsFlexible() bool           { return true }
func (v *AddShareAcksToTxnResponse) Throttle() (int32, bool)  { return v.ThrottleMillis, true }
func (v *AddShareAcksToTxnResponse) SetThrottle(throttleMillis int32) {
	v.ThrottleMillis = throttleMillis
}
func (v *AddShareAcksToTxnResponse) RequestKind() kmsg.Request {
	return &AddShareAcksToTxnRequest{APIKey: v.APIKey, Version: v.Version}
}

func (v *AddShareAcksToTxnResponse) AppendTo(dst []byte) []byte {
	w := writer{b: dst}
	w.int32(v.ThrottleMillis)
	w.int16(v.ErrorCode)
	w.tags(v.UnknownTags)
	return w.b
}

func (v *AddShareAcksToTxnResponse) ReadFrom(src []byte) error {
	const msg = "AddShareAcksToTxnResponse"
	if err := checkVersion(msg, v.Version, AddShareAcksToTxnVersion); err != nil {
		return err
	}
	r := reader{b: src}
	v.ThrottleMillis = r.int32()
	v.ErrorCode = r.int16()
	v.UnknownTags = r.tags()
	return r.done(msg)
}
