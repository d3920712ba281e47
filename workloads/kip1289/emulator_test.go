package kip1289

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// emulator is a test double for the broker side of KIP-1289, placed between
// kgo and kfake as a kgo.Dialer (no broker speaks the RPCs yet). On each
// connection it:
//
//   - adds both keys to ApiVersions answers, so negotiation sees a KIP-1289
//     broker;
//   - turns AddShareAcksToTxn into AddOffsetsToTxn v3 (same transactional id,
//     producer id, epoch; the group as the group): kfake then really enlists
//     the transaction and checks the epoch, and its answer has exactly the
//     AddShareAcksToTxn v0 layout;
//   - answers TxnShareAcknowledge itself (NONE per partition, or an injected
//     error), sending kfake an ApiVersions v0 in its place so that answers
//     keep their order on the connection.
//
// It records every request it saw. It is the unit's own edge: what it checks
// is that the client sends the right requests to the right place in the
// right order; whether a broker materializes acks needs a real KIP-1289
// broker.
type emulator struct {
	keys APIKeys

	mu       sync.Mutex
	adds     []wire.AddShareAcksToTxnRequest
	acks     []wire.TxnShareAcknowledgeRequest
	failPart map[int32]int16 // partition -> error code for TxnShareAcknowledge
}

func newEmulator(keys APIKeys) *emulator {
	return &emulator{keys: keys.orDefault(), failPart: make(map[int32]int16)}
}

func (em *emulator) dial(ctx context.Context, network, host string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	return &emuConn{Conn: c, em: em, pending: make(map[int32]pendingResp)}, nil
}

func (em *emulator) seen() ([]wire.AddShareAcksToTxnRequest, []wire.TxnShareAcknowledgeRequest) {
	em.mu.Lock()
	defer em.mu.Unlock()
	return append([]wire.AddShareAcksToTxnRequest(nil), em.adds...), append([]wire.TxnShareAcknowledgeRequest(nil), em.acks...)
}

func (em *emulator) failPartition(p int32, code int16) {
	em.mu.Lock()
	defer em.mu.Unlock()
	em.failPart[p] = code
}

type pendingKind int

const (
	pendingAPIVersions pendingKind = iota + 1
	pendingReplace
)

type pendingResp struct {
	kind    pendingKind
	version int16
	body    []byte // pendingReplace: the flexible response body
}

type emuConn struct {
	net.Conn
	em *emulator

	wmu  sync.Mutex
	wbuf []byte

	rbuf []byte // reader side only (kgo reads from one goroutine)

	mu      sync.Mutex
	pending map[int32]pendingResp
}

func (c *emuConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = append(c.wbuf, p...)
	for len(c.wbuf) >= 4 {
		size := int(binary.BigEndian.Uint32(c.wbuf))
		if len(c.wbuf) < 4+size {
			break
		}
		frame, err := c.rewrite(c.wbuf[4 : 4+size])
		if err != nil {
			return 0, err
		}
		out := binary.BigEndian.AppendUint32(nil, uint32(len(frame)))
		if _, err := c.Conn.Write(append(out, frame...)); err != nil {
			return 0, err
		}
		c.wbuf = c.wbuf[4+size:]
	}
	return len(p), nil
}

func (c *emuConn) rewrite(frame []byte) ([]byte, error) {
	key := int16(binary.BigEndian.Uint16(frame[0:]))
	version := int16(binary.BigEndian.Uint16(frame[2:]))
	corr := int32(binary.BigEndian.Uint32(frame[4:]))
	cidLen := int(int16(binary.BigEndian.Uint16(frame[8:])))
	hdr := frame[:10+max(cidLen, 0)] // key, version, corr, client id
	switch key {
	case 18:
		c.expect(corr, pendingResp{kind: pendingAPIVersions, version: version})
		return frame, nil
	case c.em.keys.AddShareAcksToTxn:
		var req wire.AddShareAcksToTxnRequest
		if err := req.ReadFrom(frame[len(hdr)+1:]); err != nil { // +1: empty header tags
			return nil, fmt.Errorf("emulator: %w", err)
		}
		c.em.mu.Lock()
		c.em.adds = append(c.em.adds, req)
		c.em.mu.Unlock()
		add := kmsg.NewPtrAddOffsetsToTxnRequest()
		add.Version = 3
		add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.GroupID
		out := binary.BigEndian.AppendUint16(nil, 25)
		out = binary.BigEndian.AppendUint16(out, 3)
		out = append(out, hdr[4:]...) // corr, client id
		out = append(out, 0)          // header tags
		return add.AppendTo(out), nil
	case c.em.keys.TxnShareAcknowledge:
		var req wire.TxnShareAcknowledgeRequest
		if err := req.ReadFrom(frame[len(hdr)+1:]); err != nil {
			return nil, fmt.Errorf("emulator: %w", err)
		}
		resp := wire.TxnShareAcknowledgeResponse{}
		c.em.mu.Lock()
		c.em.acks = append(c.em.acks, req)
		for _, t := range req.Topics {
			rt := wire.TxnShareAcknowledgeResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, wire.TxnShareAcknowledgeResponsePartition{
					Partition: p.Partition, ErrorCode: c.em.failPart[p.Partition]})
			}
			resp.Topics = append(resp.Topics, rt)
		}
		c.em.mu.Unlock()
		c.expect(corr, pendingResp{kind: pendingReplace, body: resp.AppendTo(nil)})
		out := binary.BigEndian.AppendUint16(nil, 18)
		out = binary.BigEndian.AppendUint16(out, 0)
		return append(out, hdr[4:]...), nil // ApiVersions v0: no tags, empty body
	}
	return frame, nil
}

func (c *emuConn) expect(corr int32, p pendingResp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[corr] = p
}

func (c *emuConn) Read(p []byte) (int, error) {
	if len(c.rbuf) == 0 {
		var size [4]byte
		if _, err := io.ReadFull(c.Conn, size[:]); err != nil {
			return 0, err
		}
		payload := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(c.Conn, payload); err != nil {
			return 0, err
		}
		payload = c.transform(payload)
		c.rbuf = append(binary.BigEndian.AppendUint32(nil, uint32(len(payload))), payload...)
	}
	n := copy(p, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n, nil
}

func (c *emuConn) transform(payload []byte) []byte {
	corr := int32(binary.BigEndian.Uint32(payload))
	c.mu.Lock()
	p, ok := c.pending[corr]
	delete(c.pending, corr)
	c.mu.Unlock()
	switch {
	case !ok:
		return payload
	case p.kind == pendingReplace:
		out := append([]byte(nil), payload[:4]...)
		out = append(out, 0) // flexible response header: empty tags
		return append(out, p.body...)
	}
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = p.version
	if err := resp.ReadFrom(payload[4:]); err != nil || resp.ErrorCode != 0 {
		return payload
	}
	for _, key := range c.em.keys.list() {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = key, 0, 0
		resp.ApiKeys = append(resp.ApiKeys, k)
	}
	return resp.AppendTo(append([]byte(nil), payload[:4]...))
}
