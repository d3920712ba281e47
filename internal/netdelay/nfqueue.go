package netdelay

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/netfilter"
)

// The NFQUEUE part of nfnetlink (linux/netfilter/nfnetlink_queue.h): the
// kernel hands each packet an iptables NFQUEUE rule matched to the
// process bound to its queue, and holds it until that process sends a
// verdict for the packet's id.
const (
	subsysQueue netfilter.SubsystemID = 3 // NFNL_SUBSYS_QUEUE

	msgPacket  netfilter.MessageType = 0 // NFQNL_MSG_PACKET
	msgVerdict netfilter.MessageType = 1 // NFQNL_MSG_VERDICT
	msgConfig  netfilter.MessageType = 2 // NFQNL_MSG_CONFIG

	attrPacketHdr  = 1 // NFQA_PACKET_HDR: be32 id, be16 hw protocol, u8 hook
	attrVerdictHdr = 2 // NFQA_VERDICT_HDR: be32 verdict, be32 id

	attrCfgCmd    = 1 // NFQA_CFG_CMD: u8 command, u8 pad, be16 pf
	attrCfgParams = 2 // NFQA_CFG_PARAMS: be32 copy range, u8 copy mode
	attrCfgMaxLen = 3 // NFQA_CFG_QUEUE_MAXLEN: be32
	attrCfgMask   = 4 // NFQA_CFG_MASK: be32
	attrCfgFlags  = 5 // NFQA_CFG_FLAGS: be32

	cmdBind   = 1 // NFQNL_CFG_CMD_BIND
	cmdUnbind = 2 // NFQNL_CFG_CMD_UNBIND

	copyMeta = 1 // NFQNL_COPY_META: the packet's header only, no payload

	flagFailOpen = 1 // NFQA_CFG_F_FAIL_OPEN: a full queue accepts, not drops

	verdictAccept = 1 // NF_ACCEPT
)

// configMessage is a request to configure queue with attrs, acknowledged.
func configMessage(queue uint16, attrs ...netfilter.Attribute) (netlink.Message, error) {
	return netfilter.MarshalNetlink(netfilter.Header{
		Flags:       netlink.Request | netlink.Acknowledge,
		SubsystemID: subsysQueue, MessageType: msgConfig,
		Family: netfilter.ProtoUnspec, ResourceID: queue,
	}, attrs)
}

func commandAttr(cmd uint8) netfilter.Attribute {
	return netfilter.Attribute{Type: attrCfgCmd, Data: []byte{cmd, 0, 0, 0}}
}

// bindMessages bind queue to this socket, asking for the packets' headers
// only (a verdict needs no payload), up to maxLen queued, accepting what a
// full queue cannot hold rather than dropping it.
func bindMessages(queue uint16, maxLen uint32) ([]netlink.Message, error) {
	params := make([]byte, 5)
	binary.BigEndian.PutUint32(params[0:4], 0)
	params[4] = copyMeta
	var msgs []netlink.Message
	for _, attrs := range [][]netfilter.Attribute{
		{commandAttr(cmdBind)},
		{{Type: attrCfgParams, Data: params}},
		{{Type: attrCfgMaxLen, Data: netfilter.Uint32Bytes(maxLen)}},
		{{Type: attrCfgMask, Data: netfilter.Uint32Bytes(flagFailOpen)}, {Type: attrCfgFlags, Data: netfilter.Uint32Bytes(flagFailOpen)}},
	} {
		m, err := configMessage(queue, attrs...)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// verdictMessage accepts the packet id of queue; not acknowledged (one
// per packet).
func verdictMessage(queue uint16, id uint32) (netlink.Message, error) {
	hdr := make([]byte, 8)
	binary.BigEndian.PutUint32(hdr[0:4], verdictAccept)
	binary.BigEndian.PutUint32(hdr[4:8], id)
	return netfilter.MarshalNetlink(netfilter.Header{
		Flags:       netlink.Request,
		SubsystemID: subsysQueue, MessageType: msgVerdict,
		Family: netfilter.ProtoUnspec, ResourceID: queue,
	}, []netfilter.Attribute{{Type: attrVerdictHdr, Data: hdr}})
}

var errNotAPacket = errors.New("not a queued packet")

// packetID is the id of the queued packet m carries.
func packetID(m netlink.Message) (uint32, error) {
	h, attrs, err := netfilter.UnmarshalNetlink(m)
	if err != nil {
		return 0, err
	}
	if h.SubsystemID != subsysQueue || h.MessageType != msgPacket {
		return 0, errNotAPacket
	}
	for _, a := range attrs {
		if a.Type == attrPacketHdr {
			if len(a.Data) < 4 {
				return 0, fmt.Errorf("packet header of %d bytes", len(a.Data))
			}
			return binary.BigEndian.Uint32(a.Data[0:4]), nil
		}
	}
	return 0, errors.New("queued packet without a packet header")
}
