package kip1289

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// Support is what the cluster's brokers advertise of KIP-1289.
type Support struct {
	// Native: every broker advertises AddShareAcksToTxn v0 and
	// TxnShareAcknowledge at one version this client speaks, the same on
	// every broker.
	Native bool
	// TxnShareAcknowledgeVersion is that version when Native:
	// wire.TxnShareAcknowledgeToCoordinator (v0, the KIP as written: the
	// reference broker) or wire.TxnShareAcknowledgeToLeader (v1: the patched
	// Kafka). It decides where the client sends the request (Route).
	TxnShareAcknowledgeVersion int16
	// Missing names each API some broker lacks, with its key, e.g.
	// "TxnShareAcknowledge (key 12891)", or what is wrong with the versions
	// advertised.
	Missing []string
	// Brokers is how many brokers were asked.
	Brokers int
	// Blocked is why this client cannot run the native workload even on a
	// broker that speaks the RPCs (NativeWorkloadSupported); nil if it can.
	Blocked error
}

// Route says where TxnShareAcknowledge goes at the negotiated version: "share
// coordinator" (v0) or "partition leader" (v1); empty when not Native.
func (s Support) Route() string {
	if !s.Native {
		return ""
	}
	return routeName(s.TxnShareAcknowledgeVersion)
}

func routeName(version int16) string {
	if version == wire.TxnShareAcknowledgeToLeader {
		return "partition leader"
	}
	return "share coordinator"
}

// Negotiate asks every broker's ApiVersions (and nothing else new) whether it
// speaks both RPCs at a version this client does. It must run before anything
// is sent with the keys: kfake crashes on a key it does not know and a stock
// broker closes the connection. Every broker is asked because the transaction
// coordinator, the share coordinators and the partition leaders can be any of
// them, and a rolling upgrade leaves a mix. TxnShareAcknowledge must have the
// same highest common version on every broker: its version is its routing, and
// one client cannot send the same acks to share coordinators and leaders.
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
	var brokers []BrokerAPIs
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
		apis := BrokerAPIs{Node: b.NodeID, Versions: map[int16][2]int16{}}
		for _, k := range vresp.ApiKeys {
			if k.ApiKey == keys.AddShareAcksToTxn || k.ApiKey == keys.TxnShareAcknowledge {
				apis.Versions[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
			}
		}
		brokers = append(brokers, apis)
	}
	if len(brokers) == 0 {
		return Support{}, fmt.Errorf("negotiate kip-1289: metadata named no brokers")
	}
	return SupportFrom(keys, brokers), nil
}

// BrokerAPIs is what one broker advertises of the two keys: key -> {min, max}.
type BrokerAPIs struct {
	Node     int32
	Versions map[int16][2]int16
}

// SupportFrom decides Support from what each broker advertises (Negotiate
// asks; tests hand it mixes).
func SupportFrom(keys APIKeys, brokers []BrokerAPIs) Support {
	keys = keys.orDefault()
	s := Support{Native: true, Blocked: NativeWorkloadSupported(), TxnShareAcknowledgeVersion: -1, Brokers: len(brokers)}
	missing := func(name string) {
		s.Native = false
		if !slices.Contains(s.Missing, name) {
			s.Missing = append(s.Missing, name)
		}
	}
	ackVersions := map[int16][]int32{} // TxnShareAcknowledge version -> brokers
	for _, b := range brokers {
		if _, ok := highestVersion(b.Versions, keys.AddShareAcksToTxn, wire.AddShareAcksToTxnVersion); !ok {
			missing(keys.Describe(keys.AddShareAcksToTxn))
		}
		v, ok := highestVersion(b.Versions, keys.TxnShareAcknowledge, wire.TxnShareAcknowledgeMaxVersion)
		if !ok {
			missing(keys.Describe(keys.TxnShareAcknowledge))
			continue
		}
		ackVersions[v] = append(ackVersions[v], b.Node)
	}
	switch len(ackVersions) {
	case 0:
	case 1:
		for v := range ackVersions {
			s.TxnShareAcknowledgeVersion = v
		}
	default:
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(ackVersions)) {
			parts = append(parts, fmt.Sprintf("v%d (to the %s) on brokers %v", v, routeName(v), ackVersions[v]))
		}
		missing(fmt.Sprintf("%s at one version on every broker (%s)", keys.Describe(keys.TxnShareAcknowledge), strings.Join(parts, ", ")))
	}
	if !s.Native {
		s.TxnShareAcknowledgeVersion = -1
	}
	return s
}

// highestVersion is the highest version of key both the broker ({min, max}
// by key) and this client (0..max) speak, as kgo will pick it.
func highestVersion(advertised map[int16][2]int16, key, max int16) (int16, bool) {
	mm, ok := advertised[key]
	if !ok {
		return 0, false
	}
	v := min(mm[1], max)
	return v, v >= mm[0] && v >= 0
}
