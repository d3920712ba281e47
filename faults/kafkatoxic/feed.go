package kafkatoxic

import (
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
)

// feed scans one chunk and acts on its frames. What passes goes to out, as
// the chunk itself or slices of it (no copy); a hold or delay puts the rest of
// the chunk in front of held and closes the gate; a reset stops at the frame.
func (cs *connState) feed(t *Toxic, spec Spec, configured bool, c *stream.StreamChunk) {
	data := c.Data
	start, i := 0, 0 // data[start:i] passes unless something interrupts it
	for i < len(data) {
		st := cs.scan.next(data[i:])
		switch st.kind {
		case stepRaw:
			i += st.n

		case stepBody:
			if cs.capturing {
				cs.capture = append(cs.capture, data[i:i+st.n]...)
			}
			if cs.dropping {
				cs.emit(c, data[start:i])
				start = i + st.n
			}
			i += st.n
			if cs.scan.remaining == 0 {
				cs.endFrame(t, spec)
			}

		case stepPartial:
			cs.emit(c, data[start:i])
			if cs.scan.stashLen == st.n {
				cs.stashAt = c.Timestamp
			}
			i += st.n
			start = i

		case stepDesync:
			t.desynced.Add(1)
			if st.raw != nil {
				cs.emit(c, data[start:i])
				cs.emitCopy(st.raw, cs.stashAt)
				start = i + st.n
			}
			i += st.n

		case stepHeader:
			arrived, header := c.Timestamp, data[i:i+st.n]
			if st.raw != nil {
				arrived, header = cs.stashAt, st.raw
			}
			action := cs.decide(t, spec, configured, st.header)
			switch action {
			case ActionHold, ActionDelay:
				cs.emit(c, data[start:i])
				var head []*stream.StreamChunk
				rest := data[i:]
				if st.raw != nil {
					head = append(head, &stream.StreamChunk{Data: append([]byte(nil), st.raw...), Timestamp: arrived})
					rest = data[i+st.n:]
				}
				if len(rest) > 0 {
					head = append(head, &stream.StreamChunk{Data: rest, Timestamp: c.Timestamp})
				}
				// The held bytes start at this frame's header; it is scanned
				// again when the gate opens, and passes then.
				cs.scan.rewind()
				cs.exemptNext = true
				var until time.Time
				if action == ActionDelay {
					until = arrived.Add(spec.Delay)
				}
				cs.closeGate(t, until)
				cs.held = append(head, cs.held...)
				t.heldBytes.Add(chunkBytes(head))
				return

			case ActionReset:
				cs.emit(c, data[start:i])
				cs.reset = true
				return

			case actionInspect:
				cs.emit(c, data[start:i])
				cs.startInspect(t, spec, st, arrived, data[i:], c.Timestamp)
				return

			case ActionDrop:
				cs.emit(c, data[start:i])
				cs.dropping = true
				i += st.n
				start = i

			default: // pass, capture
				if action == ActionCapture {
					cs.startCapture(t, st.header, header, arrived)
				}
				if st.raw != nil {
					cs.emit(c, data[start:i])
					cs.emitCopy(st.raw, arrived)
					start = i + st.n
				}
				i += st.n
			}
			if cs.scan.remaining == 0 {
				cs.endFrame(t, spec)
			}
		}
	}
	cs.emit(c, data[start:])
}

// decide returns the action for a frame, or "" to pass it, and counts it.
func (cs *connState) decide(t *Toxic, spec Spec, configured bool, h Header) Action {
	if cs.exemptNext {
		cs.exemptNext = false
		return ""
	}
	if !configured || (spec.APIKey != AnyAPIKey && h.APIKey != spec.APIKey) {
		return ""
	}
	if spec.Match != "" {
		if t.isReleased() {
			return ""
		}
		return actionInspect // counted once judged whole (judge)
	}
	n := t.matched.Add(1)
	if spec.Nth != 0 && n != spec.Nth {
		return ""
	}
	if t.isReleased() {
		return ""
	}
	t.recordFire(time.Now())
	return spec.Action
}

func (cs *connState) startCapture(t *Toxic, h Header, header []byte, at time.Time) {
	if h.FrameLen() > maxCaptureFrame {
		t.mu.Lock()
		t.capDropped++
		t.mu.Unlock()
		return
	}
	cs.capturing = true
	cs.capHeader = h
	cs.capStarted = at
	cs.capture = append(make([]byte, 0, h.FrameLen()), header...)
}

// endFrame finishes the current frame once its last byte went by.
func (cs *connState) endFrame(t *Toxic, spec Spec) {
	cs.dropping = false
	if cs.capturing {
		t.addCapture(Capture{At: cs.capStarted, Header: cs.capHeader, Frame: cs.capture}, spec.captureLimit())
		cs.capturing, cs.capture = false, nil
	}
}
