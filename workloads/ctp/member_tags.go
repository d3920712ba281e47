package ctp

import "fmt"

// Member tags of TxnShareAcknowledge in the native realization: whether the
// worker sends the proposed amendment's MemberId and MemberEpoch tagged
// fields (docs/FINDINGS.md 2). The reference broker checks them when present
// and accepts as KIP-1289 is written when they are absent, so omitting them
// shows what the KIP as written allows.
const (
	// MemberTagsSend sends the member id and epoch (the default).
	MemberTagsSend = "send"
	// MemberTagsOmit sends TxnShareAcknowledge as the KIP writes it: no
	// member id, no epoch, so the broker cannot check the acker holds the
	// records.
	MemberTagsOmit = "omit"
)

// MemberTagChoices are the values --kip1289-member-tags takes.
var MemberTagChoices = []string{MemberTagsSend, MemberTagsOmit}

// validMemberTags checks a WorkerConfig.MemberTags ("" is send).
func validMemberTags(v string) error {
	switch v {
	case "", MemberTagsSend, MemberTagsOmit:
		return nil
	}
	return fmt.Errorf("member_tags %q: want %s or %s", v, MemberTagsSend, MemberTagsOmit)
}

// memberTags is c.MemberTags with its default.
func (c WorkerConfig) memberTags() string {
	if c.MemberTags == "" {
		return MemberTagsSend
	}
	return c.MemberTags
}

// OmitsMemberTags reports whether the worker sends TxnShareAcknowledge
// without the member id and epoch.
func (c WorkerConfig) OmitsMemberTags() bool { return c.MemberTags == MemberTagsOmit }
