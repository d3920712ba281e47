package kip1289

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
)

// ShareGroupMetadata identifies the share-group member whose acknowledgements
// go into a transaction (the KIP's ShareGroupMetadata). The two-RPC wire
// profile carries only GroupID; MemberID and GenerationID are kept for the
// API's sake and for a profile that fences stale members.
type ShareGroupMetadata struct {
	GroupID      string
	MemberID     string
	GenerationID int32
}

func (m ShareGroupMetadata) validate() error {
	if m.GroupID == "" {
		return errors.New("share group metadata: empty group id")
	}
	return nil
}

// LookupShareMember finds the metadata of the share-group member with the
// given client id. kgo does not expose a share consumer's member id
// (GroupMetadata gives "", -1 for share groups), so it comes from
// DescribeShareGroups.
func LookupShareMember(ctx context.Context, adm *kadm.Client, group, clientID string) (ShareGroupMetadata, error) {
	described, err := adm.DescribeShareGroups(ctx, group)
	if err != nil {
		return ShareGroupMetadata{}, fmt.Errorf("describe share group %s: %w", group, err)
	}
	g, ok := described[group]
	if !ok {
		return ShareGroupMetadata{}, fmt.Errorf("describe share group %s: not in the response", group)
	}
	if g.Err != nil {
		return ShareGroupMetadata{}, fmt.Errorf("describe share group %s: %w", group, g.Err)
	}
	for _, m := range g.Members {
		if m.ClientID == clientID {
			return ShareGroupMetadata{GroupID: group, MemberID: m.MemberID, GenerationID: m.MemberEpoch}, nil
		}
	}
	return ShareGroupMetadata{}, fmt.Errorf("describe share group %s: no member with client id %q", group, clientID)
}
