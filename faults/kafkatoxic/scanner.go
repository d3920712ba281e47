package kafkatoxic

// scanner finds frame boundaries in a byte stream that arrives in chunks of
// any size: a frame may be split across many chunks and a chunk may hold many
// frames. It copies nothing but a header that straddles chunks (at most 12
// bytes), so the toxic can forward whole chunks or slices of them.
type scanner struct {
	frames Frames
	// stash holds the first bytes of a header whose end has not arrived yet.
	stash    [maxHeaderLen]byte
	stashLen int
	// remaining is how many bytes of the current frame, after its header,
	// are still to come.
	remaining int
	// desynced: a header made no sense, so the stream is not (or no longer)
	// Kafka framing; everything after it passes through unparsed.
	desynced bool
}

type stepKind uint8

const (
	// stepBody: n bytes of the current frame after its header.
	stepBody stepKind = iota
	// stepHeader: a frame's header is complete. n bytes of data belong to
	// it; if raw is not nil the whole header is in raw (it began in an
	// earlier chunk) and data[:n] is its tail, already included in raw.
	stepHeader
	// stepPartial: n bytes went into the stash; the header is not complete.
	stepPartial
	// stepDesync: the header in raw (or data[:n], when raw is nil) is not a
	// Kafka header; from here on everything is stepRaw.
	stepDesync
	// stepRaw: n bytes of a stream that lost its framing.
	stepRaw
)

type step struct {
	kind   stepKind
	n      int
	header Header
	raw    []byte
}

// next consumes a prefix of data, which must not be empty. raw, when set,
// aliases the scanner's stash and is valid until the next call.
func (s *scanner) next(data []byte) step {
	if s.desynced {
		return step{kind: stepRaw, n: len(data)}
	}
	if s.remaining > 0 {
		n := min(s.remaining, len(data))
		s.remaining -= n
		return step{kind: stepBody, n: n}
	}
	hl := s.frames.headerLen()
	if s.stashLen == 0 && len(data) >= hl {
		h, err := ParseHeader(s.frames, data)
		if err != nil {
			s.desynced = true
			return step{kind: stepDesync, n: hl}
		}
		s.remaining = h.FrameLen() - hl
		return step{kind: stepHeader, n: hl, header: h}
	}
	n := copy(s.stash[s.stashLen:hl], data)
	s.stashLen += n
	if s.stashLen < hl {
		return step{kind: stepPartial, n: n}
	}
	s.stashLen = 0
	raw := s.stash[:hl]
	h, err := ParseHeader(s.frames, raw)
	if err != nil {
		s.desynced = true
		return step{kind: stepDesync, n: n, raw: raw}
	}
	s.remaining = h.FrameLen() - hl
	return step{kind: stepHeader, n: n, header: h, raw: raw}
}

// rewind forgets the header just returned, so that the same bytes can be fed
// again from the frame's start (the toxic does this when it holds a frame:
// the held bytes are scanned again on release).
func (s *scanner) rewind() {
	s.remaining = 0
	s.stashLen = 0
}

// pending returns the stashed bytes of a partly read header, which were
// consumed but not forwarded.
func (s *scanner) pending() []byte { return s.stash[:s.stashLen] }
