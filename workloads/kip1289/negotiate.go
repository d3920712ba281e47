package kip1289

import (
	"context"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Support is what the cluster's brokers advertise of KIP-1289.
type Support struct {
	// Native: every broker advertises both RPCs at version 0.
	Native bool
	// Missing names each API some broker lacks, with its key, e.g.
	// "TxnShareAcknowledge (key 12891)".
	Missing []string
	// Brokers is how many brokers were asked.
	Brokers int
	// Blocked is why this client cannot run the native workload even on a
	// broker that speaks the RPCs (NativeWorkloadSupported); nil if it can.
	Blocked error
}

// Negotiate asks every broker's ApiVersions (and nothing else new) whether it
// speaks both RPCs at version 0. It must run before anything is sent with the
// keys: kfake crashes on a key it does not know and a stock broker closes the
// connection. Every broker is asked because the transaction coordinator and
// the share coordinators can be any of them, and a rolling upgrade leaves a
// mix.
func Negotiate(ctx context.Context, cl *kgo.Client, keys APIKeys) (Support, error) {
	keys = keys.orDefault()
	if err := keys.Validate(); err != nil {
		return Support{}, err
	}
	meta := kmsg.NewPtrMetadataRequest()
	meta.Topics = []kmsg.MetadataRequestTopic{} // brokers only, no topics
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil {
		return Support{}, fmt.Errorf("negotiate kip-1289: list brokers: %w", err)
	}
	s := Support{Native: true, Blocked: NativeWorkloadSupported()}
	for _, b := range mresp.Brokers {
		vreq := kmsg.NewPtrApiVersionsRequest()
		// kgo fills these in only for requests it routes itself; a broker
		// refuses ApiVersions v3+ without them (INVALID_REQUEST).
		vreq.ClientSoftwareName, vreq.ClientSoftwareVersion = "sharechaos", "kip1289"
		vreq.NodeID = -1
		vresp, err := vreq.RequestWith(ctx, cl.Broker(int(b.NodeID)))
		if err != nil {
			return Support{}, fmt.Errorf("negotiate kip-1289: api versions of broker %d: %w", b.NodeID, err)
		}
		if err := kerr.ErrorForCode(vresp.ErrorCode); err != nil {
			return Support{}, fmt.Errorf("negotiate kip-1289: api versions of broker %d: %w", b.NodeID, err)
		}
		s.Brokers++
		for _, key := range keys.list() {
			if advertises(vresp, key) {
				continue
			}
			s.Native = false
			if name := keys.Describe(key); !slices.Contains(s.Missing, name) {
				s.Missing = append(s.Missing, name)
			}
		}
	}
	if s.Brokers == 0 {
		return Support{}, fmt.Errorf("negotiate kip-1289: metadata named no brokers")
	}
	return s, nil
}

// advertises reports whether the broker accepts version 0 of key.
func advertises(resp *kmsg.ApiVersionsResponse, key int16) bool {
	for _, k := range resp.ApiKeys {
		if k.ApiKey == key {
			return k.MinVersion <= 0 && k.MaxVersion >= 0
		}
	}
	return false
}
