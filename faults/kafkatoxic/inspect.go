package kafkatoxic

import (
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
)

// actionInspect is decide's answer for a frame of a Match toxic's api key:
// wait until the frame is whole, then judge it (judge).
const actionInspect Action = "inspect"

// startInspect closes the gate at a frame's header, as a hold does, so that
// the frame and what follows wait in held until the frame is whole; rest is
// the chunk from the header on (the header's start in st.raw when it began
// in an earlier chunk).
func (cs *connState) startInspect(t *Toxic, spec Spec, st step, arrived time.Time, rest []byte, at time.Time) {
	var head []*stream.StreamChunk
	if st.raw != nil {
		head = append(head, &stream.StreamChunk{Data: append([]byte(nil), st.raw...), Timestamp: arrived})
		rest = rest[st.n:]
	}
	if len(rest) > 0 {
		head = append(head, &stream.StreamChunk{Data: rest, Timestamp: at})
	}
	// The frame is scanned again when the gate opens; it was judged then.
	cs.scan.rewind()
	cs.exemptNext = true
	cs.gateClosed, cs.gateUntil = true, time.Time{}
	cs.inspecting, cs.inspectLen, cs.inspectHeader, cs.inspectAt = true, st.header.FrameLen(), st.header, arrived
	cs.held = append(head, cs.held...)
	t.heldBytes.Add(chunkBytes(head))
	cs.judge(t, spec)
}

// judge acts on the inspected frame once it is whole: a frame the match
// names (the nth, where Nth is set) gets the toxic's action, as if it had
// matched at its header; any other passes.
func (cs *connState) judge(t *Toxic, spec Spec) {
	if !cs.inspecting || chunkBytes(cs.held) < int64(cs.inspectLen) {
		return
	}
	frame := prefixBytes(cs.held, cs.inspectLen)
	cs.inspecting = false
	m, err := parseMatch(spec.Match) // checked by Validate
	hit := err == nil && m.matches(frame)
	if hit {
		n := t.matched.Add(1)
		hit = (spec.Nth == 0 || n == spec.Nth) && !t.isReleased()
	}
	if !hit {
		cs.pass()
		return
	}
	t.recordFire(time.Now())
	switch spec.Action {
	case ActionHold:
		t.holding.Add(1) // the gate stays closed: a hold from this frame on
	case ActionDelay:
		t.holding.Add(1)
		cs.gateUntil = cs.inspectAt.Add(spec.Delay)
	case ActionReset:
		// Pipe closes the connection; the frame and what follows are lost.
		cs.gateClosed, cs.gateUntil = false, time.Time{}
		cs.reset = true
	case ActionDrop:
		cs.dropPrefix(t, cs.inspectLen)
		cs.exemptNext = false
		cs.pass()
	case ActionCapture:
		t.addCapture(Capture{At: cs.inspectAt, Header: cs.inspectHeader, Frame: frame}, spec.captureLimit())
		cs.pass()
	}
}

// pass opens the gate of an inspected frame that is let through.
func (cs *connState) pass() {
	cs.gateClosed, cs.gateUntil = false, time.Time{}
	cs.openedAt = time.Now()
}

// dropPrefix removes the first n bytes of held.
func (cs *connState) dropPrefix(t *Toxic, n int) {
	t.heldBytes.Add(-int64(n))
	for n > 0 && len(cs.held) > 0 {
		c := cs.held[0]
		if len(c.Data) <= n {
			n -= len(c.Data)
			cs.held[0] = nil
			cs.held = cs.held[1:]
			continue
		}
		cs.held[0] = &stream.StreamChunk{Data: c.Data[n:], Timestamp: c.Timestamp}
		n = 0
	}
}

// prefixBytes copies the first n bytes of chunks.
func prefixBytes(chunks []*stream.StreamChunk, n int) []byte {
	out := make([]byte, 0, n)
	for _, c := range chunks {
		if len(out) == n {
			break
		}
		out = append(out, c.Data[:min(len(c.Data), n-len(out))]...)
	}
	return out
}
