package kafkatoxic

import (
	"encoding/binary"
	"fmt"
)

// AnyAPIKey matches every frame, whatever its api key.
const AnyAPIKey int16 = -1

const (
	sizeLen = 4
	// requestHeaderLen is what the toxic reads of a request before deciding:
	// size, api key, api version, correlation id.
	requestHeaderLen = sizeLen + 2 + 2 + 4
	// responseHeaderLen: size and correlation id.
	responseHeaderLen = sizeLen + 4
	maxHeaderLen      = requestHeaderLen
	// maxFrameSize bounds a frame's size before the toxic stops trusting the
	// stream: Kafka's socket.request.max.bytes defaults to 100 MiB, and a
	// size past this is more likely TLS or garbage than a Kafka frame.
	maxFrameSize = 1 << 30
)

// Frames says which kind of frame a stream carries: the upstream stream
// (client to broker) carries requests, the downstream stream responses.
type Frames uint8

const (
	Requests Frames = iota
	Responses
)

func (f Frames) headerLen() int {
	if f == Responses {
		return responseHeaderLen
	}
	return requestHeaderLen
}

func (f Frames) String() string {
	if f == Responses {
		return "responses"
	}
	return "requests"
}

// Header is the start of one frame.
type Header struct {
	// Size is the frame's length after the 4-byte size field.
	Size int32 `json:"size"`
	// APIKey and APIVersion are AnyAPIKey (-1) on responses, which do not
	// carry them.
	APIKey        int16 `json:"api_key"`
	APIVersion    int16 `json:"api_version"`
	CorrelationID int32 `json:"correlation_id"`
}

// FrameLen is the whole frame's length, size field included.
func (h Header) FrameLen() int { return sizeLen + int(h.Size) }

// ParseHeader reads the header at the start of b, which must hold at least
// the header's length for the kind of frames (12 bytes for requests, 8 for
// responses). It refuses what cannot be a Kafka frame, so that a stream that
// is not Kafka (or lost its framing) is noticed rather than misread.
func ParseHeader(frames Frames, b []byte) (Header, error) {
	if len(b) < frames.headerLen() {
		return Header{}, fmt.Errorf("parse header: %d bytes, need %d", len(b), frames.headerLen())
	}
	size := int32(binary.BigEndian.Uint32(b))
	if size < int32(frames.headerLen()-sizeLen) || size > maxFrameSize {
		return Header{}, fmt.Errorf("parse header: implausible frame size %d", size)
	}
	if frames == Responses {
		return Header{
			Size:          size,
			APIKey:        AnyAPIKey,
			APIVersion:    -1,
			CorrelationID: int32(binary.BigEndian.Uint32(b[4:])),
		}, nil
	}
	h := Header{
		Size:          size,
		APIKey:        int16(binary.BigEndian.Uint16(b[4:])),
		APIVersion:    int16(binary.BigEndian.Uint16(b[6:])),
		CorrelationID: int32(binary.BigEndian.Uint32(b[8:])),
	}
	if h.APIKey < 0 || h.APIVersion < 0 {
		return Header{}, fmt.Errorf("parse header: implausible api key %d version %d", h.APIKey, h.APIVersion)
	}
	return h, nil
}
