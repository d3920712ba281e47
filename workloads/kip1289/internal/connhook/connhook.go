// Package connhook wraps the connections a kgo client dials (kgo.Dialer) and
// lets a test see, rewrite or fail each Kafka request and response at the
// frame level: drop a commit's answer, close a share session's connection,
// play the broker side of an RPC no broker speaks yet. It is test plumbing for
// the unit's own edge; faults in chaos runs go through toxiproxy.
package connhook

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
)

// Header is a request's key, version and correlation id.
type Header struct {
	Key     int16
	Version int16
	Corr    int32
}

// Hooks act on frames without their size prefix. Either may be nil.
type Hooks struct {
	// Request returns the frame to send in place of frame (frame itself to
	// pass it through), or an error, which fails the write.
	Request func(h Header, frame []byte) ([]byte, error)
	// Response sees each response with the header of the request it answers
	// (as the client sent it, before any rewrite) and returns the payload to
	// deliver, or an error, which fails the read and closes the connection.
	Response func(h Header, payload []byte) ([]byte, error)
}

// Dialer dials through the hooks and remembers its live connections.
type Dialer struct {
	Hooks Hooks

	mu    sync.Mutex
	conns map[*conn]bool
}

// Dial is a kgo.Dialer.
func (d *Dialer) Dial(ctx context.Context, network, host string) (net.Conn, error) {
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	hc := &conn{Conn: c, d: d, pending: make(map[int32]Header)}
	d.mu.Lock()
	if d.conns == nil {
		d.conns = make(map[*conn]bool)
	}
	d.conns[hc] = true
	d.mu.Unlock()
	return hc, nil
}

// CloseAll closes every live connection and reports how many. For a share
// consumer this ends its share sessions: the broker releases the records it
// held at once (ORACLE.md, "How records come back").
func (d *Dialer) CloseAll() int {
	d.mu.Lock()
	conns := make([]*conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	return len(conns)
}

type conn struct {
	net.Conn
	d *Dialer

	wmu  sync.Mutex
	wbuf []byte
	rbuf []byte // read side: kgo reads each connection from one goroutine

	mu      sync.Mutex
	pending map[int32]Header
}

func (c *conn) Close() error {
	c.d.mu.Lock()
	delete(c.d.conns, c)
	c.d.mu.Unlock()
	return c.Conn.Close()
}

func (c *conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = append(c.wbuf, p...)
	for len(c.wbuf) >= 4 {
		size := int(binary.BigEndian.Uint32(c.wbuf))
		if len(c.wbuf) < 4+size {
			break
		}
		frame := c.wbuf[4 : 4+size]
		if len(frame) < 8 {
			return 0, errors.New("connhook: request frame shorter than its header")
		}
		h := Header{
			Key:     int16(binary.BigEndian.Uint16(frame)),
			Version: int16(binary.BigEndian.Uint16(frame[2:])),
			Corr:    int32(binary.BigEndian.Uint32(frame[4:])),
		}
		out := frame
		if c.d.Hooks.Request != nil {
			var err error
			if out, err = c.d.Hooks.Request(h, frame); err != nil {
				c.wbuf = nil
				return 0, err
			}
		}
		c.mu.Lock()
		c.pending[h.Corr] = h
		c.mu.Unlock()
		if _, err := c.Conn.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(out))), out...)); err != nil {
			return 0, err
		}
		c.wbuf = c.wbuf[4+size:]
	}
	return len(p), nil
}

func (c *conn) Read(p []byte) (int, error) {
	if len(c.rbuf) == 0 {
		var size [4]byte
		if _, err := io.ReadFull(c.Conn, size[:]); err != nil {
			return 0, err
		}
		payload := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(c.Conn, payload); err != nil {
			return 0, err
		}
		if len(payload) < 4 {
			return 0, errors.New("connhook: response shorter than its correlation id")
		}
		corr := int32(binary.BigEndian.Uint32(payload))
		c.mu.Lock()
		h, ok := c.pending[corr]
		delete(c.pending, corr)
		c.mu.Unlock()
		if ok && c.d.Hooks.Response != nil {
			var err error
			if payload, err = c.d.Hooks.Response(h, payload); err != nil {
				c.Close()
				return 0, err
			}
		}
		c.rbuf = append(binary.BigEndian.AppendUint32(nil, uint32(len(payload))), payload...)
	}
	n := copy(p, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n, nil
}
