package wire

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Placeholder API keys. KIP-1289's keys are unallocated (93 and 94 are taken
// in Kafka 4.4, and a public draft uses a single RPC), so the suite takes them
// from configuration; these defaults are far outside Kafka's range so that a
// stock broker can never mistake them for a real API.
const (
	DefaultAddShareAcksToTxnKey   int16 = 12890
	DefaultTxnShareAcknowledgeKey int16 = 12891
)

// Versions, all flexible. AddShareAcksToTxn has one. TxnShareAcknowledge has
// two with the same layout that differ in where the request goes, so that a
// client learns the routing from the version it negotiates
// (docs/KIP1289-ON-KAFKA.md, section 3): v0 to the share coordinator of each
// share-partition (the KIP as written; the reference broker), v1 to the leader
// of each share-partition's topic-partition, where the in-flight state lives
// (the patched Kafka).
const (
	AddShareAcksToTxnVersion         int16 = 0
	TxnShareAcknowledgeToCoordinator int16 = 0
	TxnShareAcknowledgeToLeader      int16 = 1
	TxnShareAcknowledgeMaxVersion          = TxnShareAcknowledgeToLeader
)

func keyOr(key, def int16) int16 {
	if key != 0 {
		return key
	}
	return def
}

func checkVersion(msg string, v, max int16) error {
	if v < 0 || v > max {
		return fmt.Errorf("decode %s: version %d: only 0 to %d exist", msg, v, max)
	}
	return nil
}

// Interface checks: kgo sends anything that is a kmsg.Request.
var (
	_ kmsg.Request          = (*AddShareAcksToTxnRequest)(nil)
	_ kmsg.Response         = (*AddShareAcksToTxnResponse)(nil)
	_ kmsg.ThrottleResponse = (*AddShareAcksToTxnResponse)(nil)
	_ kmsg.Request          = (*TxnShareAcknowledgeRequest)(nil)
	_ kmsg.Response         = (*TxnShareAcknowledgeResponse)(nil)
	_ kmsg.ThrottleResponse = (*TxnShareAcknowledgeResponse)(nil)
)
