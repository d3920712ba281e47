package kip1289

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289/internal/connhook"
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
	failOnce map[int32]int16 // the same, for the next TxnShareAcknowledge only
	finds    int             // FindCoordinator requests seen
}

func newEmulator(keys APIKeys) *emulator {
	return &emulator{keys: keys.orDefault(), failPart: make(map[int32]int16), failOnce: make(map[int32]int16)}
}

// dial is the kgo.Dialer that puts the emulator on every connection.
func (em *emulator) dial(ctx context.Context, network, host string) (net.Conn, error) {
	d := &connhook.Dialer{Hooks: connhook.Hooks{Request: em.request, Response: em.response}}
	return d.Dial(ctx, network, host)
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

// failPartitionOnce fails partition p of the next TxnShareAcknowledge only.
func (em *emulator) failPartitionOnce(p int32, code int16) {
	em.mu.Lock()
	defer em.mu.Unlock()
	em.failOnce[p] = code
}

// findCoordinators counts the FindCoordinator requests seen so far.
func (em *emulator) findCoordinators() int {
	em.mu.Lock()
	defer em.mu.Unlock()
	return em.finds
}

// request rewrites the two RPCs into requests kfake knows.
func (em *emulator) request(h connhook.Header, frame []byte) ([]byte, error) {
	cidLen := int(int16(binary.BigEndian.Uint16(frame[8:])))
	hdr := frame[:10+max(cidLen, 0)] // key, version, corr, client id
	body := frame[len(hdr)+1:]       // +1: the flexible header's empty tags
	switch h.Key {
	case 10: // FindCoordinator
		em.mu.Lock()
		em.finds++
		em.mu.Unlock()
	case em.keys.AddShareAcksToTxn:
		var req wire.AddShareAcksToTxnRequest
		if err := req.ReadFrom(body); err != nil {
			return nil, fmt.Errorf("emulator: %w", err)
		}
		em.mu.Lock()
		em.adds = append(em.adds, req)
		em.mu.Unlock()
		add := kmsg.NewPtrAddOffsetsToTxnRequest()
		add.Version = 3
		add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.GroupID
		out := binary.BigEndian.AppendUint16(nil, 25)
		out = binary.BigEndian.AppendUint16(out, 3)
		out = append(out, hdr[4:]...) // corr, client id
		out = append(out, 0)          // header tags
		return add.AppendTo(out), nil
	case em.keys.TxnShareAcknowledge:
		var req wire.TxnShareAcknowledgeRequest
		if err := req.ReadFrom(body); err != nil {
			return nil, fmt.Errorf("emulator: %w", err)
		}
		em.mu.Lock()
		em.acks = append(em.acks, req)
		em.mu.Unlock()
		out := binary.BigEndian.AppendUint16(nil, 18)
		out = binary.BigEndian.AppendUint16(out, 0)
		return append(out, hdr[4:]...), nil // ApiVersions v0: no tags, empty body
	}
	return frame, nil
}

// response adds the keys to ApiVersions and answers TxnShareAcknowledge in
// place of the ApiVersions v0 that stood in for it.
func (em *emulator) response(h connhook.Header, payload []byte) ([]byte, error) {
	switch h.Key {
	case em.keys.TxnShareAcknowledge:
		var req wire.TxnShareAcknowledgeRequest
		em.mu.Lock()
		req = em.acks[len(em.acks)-1] // answers come in request order on one connection
		resp := wire.TxnShareAcknowledgeResponse{}
		for _, t := range req.Topics {
			rt := wire.TxnShareAcknowledgeResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				code := em.failPart[p.Partition]
				if once, ok := em.failOnce[p.Partition]; ok {
					code = once
					delete(em.failOnce, p.Partition)
				}
				rt.Partitions = append(rt.Partitions, wire.TxnShareAcknowledgeResponsePartition{
					Partition: p.Partition, ErrorCode: code})
			}
			resp.Topics = append(resp.Topics, rt)
		}
		em.mu.Unlock()
		out := append([]byte(nil), payload[:4]...)
		out = append(out, 0) // flexible response header: empty tags
		return resp.AppendTo(out), nil
	case 18:
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.Version = h.Version
		if err := resp.ReadFrom(payload[4:]); err != nil || resp.ErrorCode != 0 {
			return payload, nil
		}
		for _, key := range em.keys.list() {
			k := kmsg.NewApiVersionsResponseApiKey()
			k.ApiKey, k.MinVersion, k.MaxVersion = key, 0, 0
			resp.ApiKeys = append(resp.ApiKeys, k)
		}
		return resp.AppendTo(append([]byte(nil), payload[:4]...)), nil
	}
	return payload, nil
}
