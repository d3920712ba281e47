package wire

import (
	"encoding/binary"
	"fmt"
)

// Proposed amendment to KIP-1289: TxnShareAcknowledge as written carries no
// member, so a share coordinator cannot tell whether the acks come from the
// member that holds the acquisitions (a consumer whose lock expired and whose
// records went to another member could still stage acks for them). Two tagged
// fields of v0 name the member:
//
//	MemberId    tag 0, compact string  the share-group member id
//	MemberEpoch tag 1, int32           its member epoch
//
// Tagged, so a broker that does not know them skips them and the message stays
// the KIP's v0. A broker that knows them checks them when present (the member
// must hold the acquisition at that epoch) and accepts as the KIP is written
// when they are absent.
const (
	tagMemberID    uint32 = 0
	tagMemberEpoch uint32 = 1
)

// memberTags is the request's top-level tagged fields: the member fields
// (when set) in tag order among the unknown ones, which keep their order.
func (v *TxnShareAcknowledgeRequest) memberTags() Tags {
	var known Tags
	if v.MemberID != nil {
		w := writer{}
		w.compactString(*v.MemberID)
		known = append(known, Tag{Tag: tagMemberID, Value: w.b})
	}
	if v.MemberEpoch != nil {
		known = append(known, Tag{Tag: tagMemberEpoch, Value: binary.BigEndian.AppendUint32(nil, uint32(*v.MemberEpoch))})
	}
	if len(known) == 0 {
		return v.UnknownTags
	}
	out := make(Tags, 0, len(known)+len(v.UnknownTags))
	for _, u := range v.UnknownTags {
		for len(known) > 0 && known[0].Tag < u.Tag {
			out = append(out, known[0])
			known = known[1:]
		}
		out = append(out, u)
	}
	return append(out, known...)
}

// takeMemberTags moves the member fields out of the decoded tagged fields;
// the rest stay unknown.
func (v *TxnShareAcknowledgeRequest) takeMemberTags(tags Tags) error {
	v.UnknownTags = nil
	for _, t := range tags {
		switch t.Tag {
		case tagMemberID:
			r := reader{b: t.Value}
			id := r.compactString("MemberId")
			if err := r.done("MemberId tag"); err != nil {
				return err
			}
			v.MemberID = &id
		case tagMemberEpoch:
			if len(t.Value) != 4 {
				return fmt.Errorf("MemberEpoch tag: %d bytes, want 4", len(t.Value))
			}
			epoch := int32(binary.BigEndian.Uint32(t.Value))
			v.MemberEpoch = &epoch
		default:
			v.UnknownTags = append(v.UnknownTags, t)
		}
	}
	return nil
}
