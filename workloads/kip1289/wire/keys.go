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

// Version is the one version of both messages: v0, flexible.
const Version int16 = 0

func keyOr(key, def int16) int16 {
	if key != 0 {
		return key
	}
	return def
}

func checkVersion(msg string, v int16) error {
	if v != Version {
		return fmt.Errorf("decode %s: version %d: only %d exists", msg, v, Version)
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
