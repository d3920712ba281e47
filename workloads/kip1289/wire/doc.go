// Package wire holds KIP-1289's two new RPCs in the seed's two-RPC profile,
// flexible (KIP-482: compact strings and arrays, tagged fields):
//
//	AddShareAcksToTxn v0      -> transaction coordinator (mirrors AddOffsetsToTxn)
//	TxnShareAcknowledge v0    -> share coordinator       (mirrors TxnOffsetCommit; the KIP as written)
//	TxnShareAcknowledge v1    -> partition leader        (same layout; docs/KIP1289-ON-KAFKA.md)
//
// Each type implements kmsg.Request or kmsg.Response, so a kgo client can
// send it once the key is in the client's max-versions table and the broker
// advertises it. The API keys are not allocated upstream (93 and 94 are taken
// in Kafka 4.4): a message carries its key in APIKey, and the defaults
// (DefaultAddShareAcksToTxnKey, DefaultTxnShareAcknowledgeKey) are
// placeholders far outside Kafka's range so that they can never collide with
// a real API.
//
// The message types deliberately do not implement kmsg.TxnCoordinatorRequest
// or kmsg.GroupCoordinatorRequest: kgo answers a coordinator request it does
// not know with "client is too old". Callers find the coordinator themselves
// and send with kgo's Broker(id).Request.
package wire
