package ctp

import (
	"strconv"
	"strings"
)

// AttrAckRequests is the attribute of a txn-acks OK event that lists the
// TxnShareAcknowledge requests that carried the transaction's acks, as
// FormatAckRequests writes them ("1:0,2;2:1": node 1 carried partitions 0
// and 2, node 2 partition 1).
const AttrAckRequests = "ack_requests"

// Attributes of a txn-acks OK event from an acker that times its requests
// (AckTimingReporter): nanoseconds of each part of the event's duration.
const (
	AttrAcksPrepareNS         = "prepare_ns"
	AttrAddShareAcksToTxnNS   = "add_share_acks_to_txn_ns"
	AttrTxnShareAcknowledgeNS = "txn_share_acknowledge_ns"
)

// ackRequestAttrs are the attributes a txn-acks OK event gets from an acker
// that reports its requests and their times (nil for any other).
func ackRequestAttrs(a TxnAcker) map[string]string {
	attrs := map[string]string{}
	if r, ok := a.(AckRequestReporter); ok {
		if reqs := r.AckRequests(); len(reqs) > 0 {
			attrs[AttrAckRequests] = FormatAckRequests(reqs)
		}
	}
	if r, ok := a.(AckTimingReporter); ok {
		prepare, add, stage := r.AckTimes()
		attrs[AttrAcksPrepareNS] = strconv.FormatInt(prepare.Nanoseconds(), 10)
		attrs[AttrAddShareAcksToTxnNS] = strconv.FormatInt(add.Nanoseconds(), 10)
		attrs[AttrTxnShareAcknowledgeNS] = strconv.FormatInt(stage.Nanoseconds(), 10)
	}
	if len(attrs) == 0 {
		return nil
	}
	return attrs
}

// FormatAckRequests writes requests as AttrAckRequests holds them.
func FormatAckRequests(reqs []AckRequest) string {
	var b strings.Builder
	for i, r := range reqs {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(strconv.Itoa(int(r.Node)))
		b.WriteByte(':')
		for j, p := range r.Partitions {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(p)))
		}
	}
	return b.String()
}

// ParseAckRequests reads AttrAckRequests back; a malformed entry is skipped.
func ParseAckRequests(s string) []AckRequest {
	var out []AckRequest
	for _, entry := range strings.Split(s, ";") {
		node, parts, ok := strings.Cut(entry, ":")
		n, err := strconv.Atoi(node)
		if !ok || err != nil {
			continue
		}
		r := AckRequest{Node: int32(n)}
		for _, p := range strings.Split(parts, ",") {
			if v, err := strconv.Atoi(p); err == nil {
				r.Partitions = append(r.Partitions, int32(v))
			}
		}
		out = append(out, r)
	}
	return out
}
