package netdelay

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/netfilter"
)

// TestVerdictMessageLayout: NFQNL_MSG_VERDICT of the queue subsystem
// (type 3<<8|1) for the queue as nfgenmsg's resource id, one
// NFQA_VERDICT_HDR with NF_ACCEPT and the packet id, big-endian.
func TestVerdictMessageLayout(t *testing.T) {
	m, err := verdictMessage(7, 0x01020304)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Type != netlink.HeaderType(3<<8|1) || m.Header.Flags != netlink.Request {
		t.Fatalf("header %+v", m.Header)
	}
	want := []byte{0, 0, 0, 7, // nfgenmsg: AF_UNSPEC, v0, queue 7
		12, 0, 2, 0, // nla_len 12, NFQA_VERDICT_HDR
		0, 0, 0, 1, 1, 2, 3, 4} // NF_ACCEPT, id
	if !bytes.Equal(m.Data, want) {
		t.Fatalf("data % x, want % x", m.Data, want)
	}
}

// TestPacketIDOfAQueuedPacket reads the id of NFQNL_MSG_PACKET's
// NFQA_PACKET_HDR, and refuses other messages.
func TestPacketIDOfAQueuedPacket(t *testing.T) {
	hdr := make([]byte, 7)
	binary.BigEndian.PutUint32(hdr, 4242)
	m, err := netfilter.MarshalNetlink(netfilter.Header{SubsystemID: subsysQueue, MessageType: msgPacket, ResourceID: 7},
		[]netfilter.Attribute{{Type: 9, Data: []byte{1, 2, 3, 4}}, {Type: attrPacketHdr, Data: hdr}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := packetID(m)
	if err != nil || id != 4242 {
		t.Fatalf("id %d, err %v", id, err)
	}
	other, _ := netfilter.MarshalNetlink(netfilter.Header{SubsystemID: subsysQueue, MessageType: msgConfig, ResourceID: 7},
		[]netfilter.Attribute{{Type: attrPacketHdr, Data: hdr}})
	if _, err := packetID(other); err == nil {
		t.Fatal("a config message read as a packet")
	}
	empty, _ := netfilter.MarshalNetlink(netfilter.Header{SubsystemID: subsysQueue, MessageType: msgPacket, ResourceID: 7},
		[]netfilter.Attribute{{Type: 9, Data: []byte{1}}})
	if _, err := packetID(empty); err == nil {
		t.Fatal("a packet without its header read")
	}
}

// TestBindAsksForHeadersOnlyAndFailsOpen: bind, copy mode META with no
// payload, the queue's bound, and FAIL_OPEN set under its mask, each
// acknowledged.
func TestBindAsksForHeadersOnlyAndFailsOpen(t *testing.T) {
	msgs, err := bindMessages(7, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 {
		t.Fatalf("%d messages", len(msgs))
	}
	var got [][]netfilter.Attribute
	for _, m := range msgs {
		if m.Header.Type != netlink.HeaderType(3<<8|2) || m.Header.Flags != netlink.Request|netlink.Acknowledge {
			t.Fatalf("header %+v", m.Header)
		}
		h, attrs, err := netfilter.UnmarshalNetlink(m)
		if err != nil || h.ResourceID != 7 {
			t.Fatalf("%+v %v", h, err)
		}
		got = append(got, attrs)
	}
	if a := got[0][0]; a.Type != attrCfgCmd || !bytes.Equal(a.Data, []byte{cmdBind, 0, 0, 0}) {
		t.Errorf("bind: %+v", a)
	}
	if a := got[1][0]; a.Type != attrCfgParams || !bytes.Equal(a.Data, []byte{0, 0, 0, 0, copyMeta}) {
		t.Errorf("params: %+v", a)
	}
	if a := got[2][0]; a.Type != attrCfgMaxLen || binary.BigEndian.Uint32(a.Data) != 1000 {
		t.Errorf("maxlen: %+v", a)
	}
	if m, f := got[3][0], got[3][1]; m.Type != attrCfgMask || f.Type != attrCfgFlags || binary.BigEndian.Uint32(f.Data) != flagFailOpen {
		t.Errorf("flags: %+v %+v", m, f)
	}
}
