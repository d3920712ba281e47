package kafkatoxic

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiVersionsKey: ApiVersions responses keep the old response header (no
// tagged fields) even in flexible versions, so that a client can read the
// answer before it knows what the broker speaks.
const apiVersionsKey = 18

// Reply is a broker's answer to a replayed frame.
type Reply struct {
	// Request is the header of the frame that was sent.
	Request Header
	// CorrelationID echoes the request's.
	CorrelationID int32
	// Body is the response after its correlation id, header tags included
	// when the version is flexible (Decode skips them).
	Body []byte
	// Response is Body decoded, or nil when kmsg does not know the api key
	// (decode it with Decode and a message of your own).
	Response kmsg.Response
}

// Replay sends frame, a whole request frame (as captured, size field
// included), on a new connection to addr, reads the one response and closes
// the connection. This is how a late EndTxn is replayed: the broker sees the
// old request again, with its producer id and epoch, on a connection of its
// own. ctx bounds the whole exchange.
func Replay(ctx context.Context, addr string, frame []byte) (Reply, error) {
	h, err := ParseHeader(Requests, frame)
	if err != nil {
		return Reply{}, fmt.Errorf("replay frame: %w", err)
	}
	if h.FrameLen() != len(frame) {
		return Reply{}, fmt.Errorf("replay frame: %d bytes, its size says %d", len(frame), h.FrameLen())
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return Reply{}, fmt.Errorf("replay frame: %w", err)
	}
	defer conn.Close()
	// Closing the connection when ctx ends unblocks the read and the write.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()

	if _, err := conn.Write(frame); err != nil {
		return Reply{}, fmt.Errorf("replay frame: write: %w", ctxErr(ctx, err))
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return Reply{}, fmt.Errorf("replay frame: read response: %w", ctxErr(ctx, err))
	}
	n := binary.BigEndian.Uint32(size[:])
	if n < 4 || n > maxFrameSize {
		return Reply{}, fmt.Errorf("replay frame: implausible response size %d", n)
	}
	resp := make([]byte, n)
	if _, err := io.ReadFull(conn, resp); err != nil {
		return Reply{}, fmt.Errorf("replay frame: read response: %w", ctxErr(ctx, err))
	}
	r := Reply{Request: h, CorrelationID: int32(binary.BigEndian.Uint32(resp)), Body: resp[4:]}
	if r.CorrelationID != h.CorrelationID {
		return r, fmt.Errorf("replay frame: response correlation id %d, sent %d", r.CorrelationID, h.CorrelationID)
	}
	if msg := kmsg.ResponseForKey(h.APIKey); msg != nil {
		if err := r.Decode(msg); err != nil {
			return r, err
		}
		r.Response = msg
	}
	return r, nil
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// Decode reads the reply into resp, a response message for the replayed
// request's api key, at the request's version.
func (r Reply) Decode(resp kmsg.Response) error {
	if resp.Key() != r.Request.APIKey {
		return fmt.Errorf("decode reply: message for key %d, request had key %d", resp.Key(), r.Request.APIKey)
	}
	resp.SetVersion(r.Request.APIVersion)
	body := r.Body
	if resp.IsFlexible() && resp.Key() != apiVersionsKey {
		rd := kbin.Reader{Src: body}
		kmsg.SkipTags(&rd)
		if err := rd.Complete(); err != nil {
			return fmt.Errorf("decode reply: header tags: %w", err)
		}
		body = rd.Src
	}
	if err := resp.ReadFrom(body); err != nil {
		return fmt.Errorf("decode reply %s v%d: %w", kmsg.NameForKey(resp.Key()), resp.GetVersion(), err)
	}
	return nil
}

// DecodeRequest reads a whole request frame (size field included), as
// captured, into req, a message for the frame's api key, and returns the
// frame's client id. Use it with kmsg's messages or one's own (such as
// KIP-1289's new requests).
func DecodeRequest(frame []byte, req kmsg.Request) (clientID *string, err error) {
	h, err := ParseHeader(Requests, frame)
	if err != nil {
		return nil, fmt.Errorf("decode request: %w", err)
	}
	if h.FrameLen() != len(frame) {
		return nil, fmt.Errorf("decode request: %d bytes, its size says %d", len(frame), h.FrameLen())
	}
	if req.Key() != h.APIKey {
		return nil, fmt.Errorf("decode request: message for key %d, frame has key %d", req.Key(), h.APIKey)
	}
	rd := kbin.Reader{Src: frame[requestHeaderLen:]}
	clientID = rd.NullableString()
	req.SetVersion(h.APIVersion)
	if req.IsFlexible() {
		kmsg.SkipTags(&rd)
	}
	if err := rd.Complete(); err != nil {
		return nil, fmt.Errorf("decode request: header: %w", err)
	}
	if err := req.ReadFrom(rd.Src); err != nil {
		return nil, fmt.Errorf("decode request %s v%d: %w", kmsg.NameForKey(h.APIKey), h.APIVersion, err)
	}
	return clientID, nil
}
