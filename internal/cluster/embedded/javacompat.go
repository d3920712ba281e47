package embedded

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The pinned kfake speaks ShareFetch in two ways Apache Kafka's Java share
// consumer cannot take (found running the Java worker, issue 24;
// docs/FINDINGS.md). franz-go's clients take both, which is why the suite never
// met them:
//
//  1. A ShareFetch response partition without records (an ack-only entry, a
//     partition with nothing to hand out) goes out with Records null: kmsg
//     writes the field as nullable bytes in every version, while Kafka's
//     schema allows null only in v0. The Java client's parser throws "non-
//     nullable field records was serialized as null" in its network thread,
//     and that member gets no records any more.
//  2. A ShareFetch with MaxRecords 0 (the Java client's acknowledgement-only
//     ShareFetch: every fetch parameter zero) acquires up to 500 records in
//     kfake, where Kafka's SharePartition acquires none. The Java client
//     hands them out at its next poll, so share.acquire.mode=record_limit
//     with max.poll.records=10 polls whole 50-record batches.
//
// javaCompatConn fixes both on the wire, per connection: (1) in each
// ShareFetch response of version 1 or more, a null Records becomes empty; (2)
// a ShareFetch of version 2 or more whose fetch parameters are all zero is
// sent on as a renew-ack ShareFetch (IsRenewAck) when every partition carries
// acknowledgements, which kfake answers by processing the acks without
// acquiring, as Kafka answers a fetch that asks for no records; one that
// changes the share session (partitions added without acks), which kfake
// would refuse as a renew-ack, asks for one record instead of kfake's 500.
// Everything else passes through byte for byte.

const shareFetchKey = 78

// JavaCompatEnv set to "off" in the broker's environment leaves kfake's
// ShareFetch as it is, to see what the Java client makes of it.
const JavaCompatEnv = "SHARECHAOS_KFAKE_JAVA_COMPAT"

// javaCompatListener wraps each accepted connection in a javaCompatConn.
type javaCompatListener struct{ net.Listener }

func (l javaCompatListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil || os.Getenv(JavaCompatEnv) == "off" {
		return c, err
	}
	return &javaCompatConn{Conn: c, versions: map[int32]int16{}}, nil
}

type javaCompatConn struct {
	net.Conn

	rmu     sync.Mutex
	pending []byte // the next request frame (possibly rewritten) not yet read by the broker

	wmu  sync.Mutex
	wbuf []byte // response bytes not yet forming a whole frame

	mu       sync.Mutex
	versions map[int32]int16 // ShareFetch requests in flight: correlation id -> version
}

// Read hands the broker whole request frames, a ShareFetch possibly rewritten.
func (c *javaCompatConn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if len(c.pending) == 0 {
		frame, err := readFrame(c.Conn)
		if err != nil {
			return 0, err
		}
		c.pending = c.request(frame)
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// request notes a ShareFetch's version and rewrites an acknowledgement-only
// one; frame is size-prefixed.
func (c *javaCompatConn) request(frame []byte) []byte {
	body := frame[4:]
	if len(body) < 8 || int16(binary.BigEndian.Uint16(body)) != shareFetchKey {
		return frame
	}
	version := int16(binary.BigEndian.Uint16(body[2:]))
	corr := int32(binary.BigEndian.Uint32(body[4:]))
	c.mu.Lock()
	c.versions[corr] = version
	c.mu.Unlock()
	if version < 2 {
		return frame
	}
	// Request header v2: key, version, correlation id, client id (int16
	// length, nullable), tagged fields.
	h := 8
	if len(body) < h+2 {
		return frame
	}
	if n := int(int16(binary.BigEndian.Uint16(body[h:]))); n > 0 {
		h += 2 + n
	} else {
		h += 2
	}
	h, ok := skipTags(body, h)
	if !ok {
		return frame
	}
	req := kmsg.NewPtrShareFetchRequest()
	req.Version = version
	if err := req.ReadFrom(body[h:]); err != nil || !fetchesNothing(req) {
		return frame
	}
	if carriesAcksOnly(req) {
		req.IsRenewAck = true
	} else {
		// Session changes (partitions added without acks): kfake refuses
		// a renew-ack with them, and acquires up to 500 records with
		// MaxRecords 0. One record is the least it can be asked for.
		req.MaxRecords = 1
	}
	out := append([]byte(nil), make([]byte, 4)...)
	out = append(out, body[:h]...)
	out = req.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// fetchesNothing: a ShareFetch of version 2 or more whose fetch parameters
// are all zero (Kafka acquires nothing for it).
func fetchesNothing(req *kmsg.ShareFetchRequest) bool {
	return !req.IsRenewAck && req.MaxRecords == 0 && req.MaxWaitMillis == 0 && req.MinBytes == 0 && req.MaxBytes == 0
}

// carriesAcksOnly: every partition of req carries acknowledgements.
func carriesAcksOnly(req *kmsg.ShareFetchRequest) bool {
	if len(req.Topics) == 0 {
		return false
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if len(p.AcknowledgementBatches) == 0 {
				return false
			}
		}
	}
	return true
}

// Write passes responses on whole frames at a time, a ShareFetch's fixed.
func (c *javaCompatConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = append(c.wbuf, p...)
	for len(c.wbuf) >= 4 {
		size := int(binary.BigEndian.Uint32(c.wbuf))
		if len(c.wbuf) < 4+size {
			break
		}
		frame := c.response(c.wbuf[:4+size])
		if _, err := c.Conn.Write(frame); err != nil {
			return 0, err
		}
		c.wbuf = c.wbuf[4+size:]
	}
	if len(c.wbuf) == 0 {
		c.wbuf = nil
	}
	return len(p), nil
}

// response gives a ShareFetch response (version 1+) empty Records where kfake
// left them null; frame is size-prefixed.
func (c *javaCompatConn) response(frame []byte) []byte {
	body := frame[4:]
	if len(body) < 5 {
		return frame
	}
	corr := int32(binary.BigEndian.Uint32(body))
	c.mu.Lock()
	version, ok := c.versions[corr]
	delete(c.versions, corr)
	c.mu.Unlock()
	if !ok || version < 1 {
		return frame
	}
	h, ok := skipTags(body, 4) // response header v1: correlation id, tagged fields
	if !ok {
		return frame
	}
	resp := kmsg.NewPtrShareFetchResponse()
	resp.Version = version
	if err := resp.ReadFrom(body[h:]); err != nil {
		return frame
	}
	fixed := false
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			if p := &resp.Topics[i].Partitions[j]; p.Records == nil {
				p.Records = []byte{}
				fixed = true
			}
		}
	}
	if !fixed {
		return frame
	}
	out := append([]byte(nil), make([]byte, 4)...)
	out = append(out, body[:h]...)
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// skipTags skips a tagged-field section at b[i:] (uvarint count, then each
// tag's uvarint id, uvarint size and data).
func skipTags(b []byte, i int) (int, bool) {
	n, w := binary.Uvarint(b[min(i, len(b)):])
	if w <= 0 {
		return 0, false
	}
	i += w
	for ; n > 0; n-- {
		_, w = binary.Uvarint(b[min(i, len(b)):])
		if w <= 0 {
			return 0, false
		}
		i += w
		size, w := binary.Uvarint(b[min(i, len(b)):])
		if w <= 0 || i+w+int(size) > len(b) {
			return 0, false
		}
		i += w + int(size)
	}
	return i, true
}

// readFrame reads one size-prefixed frame, the prefix included.
func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > 1<<30 {
		return nil, errors.New("java compat: request frame too large")
	}
	frame := make([]byte, 4+n)
	copy(frame, size[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}
