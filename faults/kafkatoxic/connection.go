package kafkatoxic

import (
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// cleanupWriteTimeout bounds how long Cleanup waits to hand over a
// connection's buffered bytes when the toxic is removed: a connection whose
// writer is stuck would otherwise hang toxiproxy's API (which holds its lock
// while removing).
const cleanupWriteTimeout = 5 * time.Second

// connState is one direction of one connection. Everything a Pipe has read
// but not yet handed on lives here, so that a Pipe can return at any
// interrupt and the next Pipe (or Cleanup) carries on in order.
type connState struct {
	started bool
	scan    scanner
	// stashAt is when the first byte of a stashed header arrived.
	stashAt time.Time

	// out is ready to be forwarded, from outPos on.
	out    []*stream.StreamChunk
	outPos int

	// The current frame, after its header: dropped, or copied.
	dropping   bool
	capturing  bool
	capHeader  Header
	capture    []byte
	capStarted time.Time

	// The gate: while closed, input goes to held untouched. until is the
	// end of a delay; zero for a hold, which waits for the release.
	gateClosed bool
	gateUntil  time.Time
	openedAt   time.Time
	held       []*stream.StreamChunk
	// exemptNext: the next header is the held frame's, scanned again after
	// the gate opened; it was decided already.
	exemptNext bool

	// inspecting: a frame of a Match toxic's api key waits, until it is
	// whole, for its judgement (inspect.go): the gate is closed and held
	// starts at its header, but it is no hold (Status.Holding does not
	// count it). inspectLen is its length, inspectAt its arrival.
	inspecting    bool
	inspectLen    int
	inspectHeader Header
	inspectAt     time.Time

	inputDone bool // the sender closed its side
	reset     bool // a matching frame asked for the connection to be closed
}

func (t *Toxic) state(stub *toxics.ToxicStub) *connState {
	cs, ok := stub.State.(*connState)
	if !ok {
		// Only when toxiproxy did not call NewState; cannot happen in 2.12.0.
		cs = new(connState)
		stub.State = cs
	}
	return cs
}

// Pipe forwards one direction of one connection, acting on matching frames.
// It returns on stub.Interrupt leaving everything in the stub's state.
func (t *Toxic) Pipe(stub *toxics.ToxicStub) {
	cs := t.state(stub)
	spec, configured := t.Spec()
	if !cs.started {
		cs.scan.frames = spec.direction().frames()
		cs.started = true
	}
	released := t.releaseCh()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if !cs.flush(stub) {
			return
		}
		if cs.reset {
			cs.closeConnection(t, stub)
			for range stub.Input {
				// Discard until the sender's side closes, which follows from
				// the closed connection; otherwise the toxics before this one
				// would block forever on a full channel.
			}
			return
		}
		if cs.gateClosed && (isClosed(released) || (!cs.gateUntil.IsZero() && !time.Now().Before(cs.gateUntil))) {
			if cs.inspecting {
				// Released while a frame waited for its judgement: a
				// released toxic acts on nothing.
				cs.inspecting = false
				cs.pass()
			} else {
				cs.openGate(t)
			}
		}
		if !cs.gateClosed && len(cs.held) > 0 {
			cs.feed(t, spec, configured, cs.popHeld(t))
			continue
		}
		if cs.inputDone && !cs.gateClosed {
			// The sender closed: forward even a partly read header, as the
			// receiver would have got it, then close.
			if p := cs.scan.pending(); len(p) > 0 {
				cs.emitCopy(p, cs.stashAt)
				cs.scan.rewind()
				continue
			}
			stub.Close()
			return
		}

		input := stub.Input
		if cs.inputDone {
			input = nil
		}
		var gateOpens <-chan time.Time
		var releasedWhileClosed <-chan struct{}
		if cs.gateClosed {
			releasedWhileClosed = released
			if !cs.gateUntil.IsZero() {
				if timer == nil {
					timer = time.NewTimer(time.Until(cs.gateUntil))
				} else {
					timer.Reset(time.Until(cs.gateUntil))
				}
				gateOpens = timer.C
			}
		}
		select {
		case <-stub.Interrupt:
			return
		case c := <-input:
			switch {
			case c == nil:
				cs.inputDone = true
				if cs.gateClosed && cs.gateUntil.IsZero() {
					cs.discardHeld(t)
				}
			case cs.gateClosed:
				cs.held = append(cs.held, c)
				t.heldBytes.Add(int64(len(c.Data)))
				if cs.inspecting {
					cs.judge(t, spec)
				}
			default:
				cs.feed(t, spec, configured, c)
			}
		case <-gateOpens:
		case <-releasedWhileClosed:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// Cleanup runs when the toxic is removed, after its Pipe returned: it hands
// on everything the connection still has, in order and unparsed (the toxic
// no longer acts), so a hold released by removal loses nothing.
func (t *Toxic) Cleanup(stub *toxics.ToxicStub) {
	cs := t.state(stub)
	rest := append([]*stream.StreamChunk(nil), cs.out[cs.outPos:]...)
	// The tail of a frame being dropped would reach the receiver without its
	// head and break its framing, and a reset frame must not pass: in both
	// cases the connection ends after what was ready to go. A sender that
	// closed gets everything forwarded, then the connection ends too.
	cut := (cs.dropping && cs.scan.remaining > 0) || cs.reset
	end := cut || cs.inputDone
	if !cut {
		if p := cs.scan.pending(); len(p) > 0 {
			rest = append(rest, &stream.StreamChunk{Data: append([]byte(nil), p...), Timestamp: cs.stashAt})
		}
		rest = append(rest, cs.held...)
	} else {
		t.discarded.Add(chunkBytes(cs.held))
	}
	if cs.gateClosed && !cs.inspecting {
		t.holding.Add(-1)
	}
	t.heldBytes.Add(-chunkBytes(cs.held))
	// The stub is done with this toxic; nothing reads the state again.
	*cs = connState{}

	deadline := time.NewTimer(cleanupWriteTimeout)
	defer deadline.Stop()
	for _, c := range rest {
		select {
		case stub.Output <- c:
		case <-deadline.C:
			// The connection's writer is stuck: better to close it than to
			// hang the API or forward a gap.
			closeAndDrain(stub)
			return
		}
	}
	if end {
		closeAndDrain(stub)
	}
}

// closeAndDrain closes the stub's output (toxiproxy then closes the
// connection both ways) and reads its input until the sender's side closes,
// so the toxics before this one do not block forever.
func closeAndDrain(stub *toxics.ToxicStub) {
	stub.Close()
	go func() {
		for range stub.Input {
		}
	}()
}

// closeConnection closes the connection after a reset; what it held is lost
// with it.
func (cs *connState) closeConnection(t *Toxic, stub *toxics.ToxicStub) {
	if cs.gateClosed {
		cs.discardHeld(t)
	} else {
		t.discarded.Add(chunkBytes(cs.held))
		t.heldBytes.Add(-chunkBytes(cs.held))
		cs.held = nil
	}
	stub.Close()
}

// flush hands on out; false if interrupted first.
func (cs *connState) flush(stub *toxics.ToxicStub) bool {
	for cs.outPos < len(cs.out) {
		select {
		case stub.Output <- cs.out[cs.outPos]:
			cs.out[cs.outPos] = nil
			cs.outPos++
		case <-stub.Interrupt:
			return false
		}
	}
	cs.out, cs.outPos = cs.out[:0], 0
	return true
}

func (cs *connState) emit(c *stream.StreamChunk, part []byte) {
	switch {
	case len(part) == 0:
	case len(part) == len(c.Data):
		cs.out = append(cs.out, c)
	default:
		cs.out = append(cs.out, &stream.StreamChunk{Data: part, Timestamp: c.Timestamp})
	}
}

func (cs *connState) emitCopy(b []byte, at time.Time) {
	cs.out = append(cs.out, &stream.StreamChunk{Data: append([]byte(nil), b...), Timestamp: at})
}

func (cs *connState) closeGate(t *Toxic, until time.Time) {
	cs.gateClosed, cs.gateUntil = true, until
	t.holding.Add(1)
}

func (cs *connState) openGate(t *Toxic) {
	cs.gateClosed, cs.gateUntil = false, time.Time{}
	cs.openedAt = time.Now()
	t.holding.Add(-1)
}

func (cs *connState) popHeld(t *Toxic) *stream.StreamChunk {
	c := cs.held[0]
	cs.held[0] = nil
	cs.held = cs.held[1:]
	t.heldBytes.Add(-int64(len(c.Data)))
	// Like toxiproxy's latency toxic: a chunk's timestamp includes the time
	// it was held, for the toxics after this one.
	if c.Timestamp.Before(cs.openedAt) {
		c.Timestamp = cs.openedAt
	}
	return c
}

// discardHeld drops what a hold kept when its sender went away.
func (cs *connState) discardHeld(t *Toxic) {
	n := chunkBytes(cs.held)
	t.discarded.Add(n)
	t.heldBytes.Add(-n)
	cs.held = nil
	cs.exemptNext = false
	cs.gateClosed, cs.gateUntil = false, time.Time{}
	if !cs.inspecting {
		t.holding.Add(-1)
	}
	cs.inspecting = false
}

func chunkBytes(cs []*stream.StreamChunk) int64 {
	var n int64
	for _, c := range cs {
		n += int64(len(c.Data))
	}
	return n
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
