package kafkatoxic

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// pipeRig runs the toxic on one real toxiproxy stub, the way a link does,
// with the test as the sender and a collector as the receiver.
type pipeRig struct {
	t       *testing.T
	toxic   *Toxic
	in      chan *stream.StreamChunk
	stub    *toxics.ToxicStub
	wrapper *toxics.ToxicWrapper

	inClosed bool
	removed  bool // Cleanup ran: no Pipe runs any more

	mu     sync.Mutex
	got    []byte
	closed bool
	change chan struct{}
	done   chan struct{}
}

func newToxic(t *testing.T, spec Spec) *Toxic {
	t.Helper()
	attrs, err := json.Marshal(spec.Attributes())
	if err != nil {
		t.Fatal(err)
	}
	toxic := new(Toxic)
	if err := json.Unmarshal(attrs, toxic); err != nil {
		t.Fatalf("configure toxic: %v", err)
	}
	return toxic
}

func newPipeRig(t *testing.T, spec Spec) *pipeRig {
	t.Helper()
	toxic := newToxic(t, spec)
	in := make(chan *stream.StreamChunk)
	out := make(chan *stream.StreamChunk)
	r := &pipeRig{
		t: t, toxic: toxic, in: in,
		stub:    toxics.NewToxicStub(in, out),
		wrapper: &toxics.ToxicWrapper{Toxic: toxic, Type: TypeName, Toxicity: 1},
		change:  make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	r.stub.State = toxic.NewState()
	go func() {
		defer close(r.done)
		for c := range out {
			r.mu.Lock()
			r.got = append(r.got, c.Data...)
			r.mu.Unlock()
			r.notify()
		}
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
		r.notify()
	}()
	r.run()
	t.Cleanup(func() {
		// The sender goes away; a running Pipe closes the stub then.
		r.closeInput()
		if r.removed && !r.stub.Closed() {
			r.stub.Close()
		}
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("the toxic never closed its output after its input closed")
		}
	})
	return r
}

func (r *pipeRig) notify() {
	select {
	case r.change <- struct{}{}:
	default:
	}
}

func (r *pipeRig) run() { go r.stub.Run(r.wrapper) }

func (r *pipeRig) closeInput() {
	if !r.inClosed {
		r.inClosed = true
		close(r.in)
	}
}

func (r *pipeRig) send(chunks ...[]byte) {
	for _, c := range chunks {
		r.in <- &stream.StreamChunk{Data: append([]byte(nil), c...), Timestamp: time.Now()}
	}
}

func (r *pipeRig) output() ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.got...), r.closed
}

// waitFor waits until cond holds on the output so far.
func (r *pipeRig) waitFor(what string, cond func(got []byte, closed bool) bool) {
	r.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if got, closed := r.output(); cond(got, closed) {
			return
		}
		select {
		case <-r.change:
		case <-deadline:
			got, closed := r.output()
			r.t.Fatalf("waiting for %s: have %d bytes, closed %v", what, len(got), closed)
		}
	}
}

func (r *pipeRig) waitForBytes(want []byte) {
	r.t.Helper()
	r.waitFor("the expected bytes", func(got []byte, _ bool) bool { return len(got) >= len(want) })
	if got, _ := r.output(); !bytes.Equal(got, want) {
		r.t.Fatalf("output: %d bytes that differ from the %d expected", len(got), len(want))
	}
}

// waitStatus waits until cond holds on the toxic's status.
func waitStatus(t *testing.T, toxic *Toxic, what string, cond func(Status) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond(toxic.Status()) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: status %+v", what, toxic.Status())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func without(frames [][]byte, drop func(i int) bool) []byte {
	var b []byte
	for i, f := range frames {
		if !drop(i) {
			b = append(b, f...)
		}
	}
	return b
}

func chunkings(stream []byte) map[string][][]byte {
	r := rand.New(rand.NewPCG(7, 7))
	return map[string][][]byte{
		"merged":       {stream},
		"byte by byte": splitEvery(stream, 1),
		"random":       splitRandomly(stream, r, 50),
		"large random": splitRandomly(stream, r, 20000),
	}
}

func TestDropSwallowsExactlyTheMatchingFrames(t *testing.T) {
	frames, headers := someRequests()
	stream := bytes.Join(frames, nil)
	isKey := func(key int16) func(int) bool { return func(i int) bool { return headers[i].APIKey == key } }
	nthOf := func(key int16, n int) func(int) bool {
		return func(i int) bool {
			seen := 0
			for j := 0; j <= i; j++ {
				if headers[j].APIKey == key {
					seen++
				}
			}
			return headers[i].APIKey == key && seen == n
		}
	}
	cases := []struct {
		name string
		spec Spec
		drop func(int) bool
	}{
		{"every EndTxn", Spec{Action: ActionDrop, APIKey: 26}, isKey(26)},
		{"the second Produce (the header-only one)", Spec{Action: ActionDrop, APIKey: 0, Nth: 2}, nthOf(0, 2)},
		{"the first Produce (70 kB)", Spec{Action: ActionDrop, APIKey: 0, Nth: 1}, nthOf(0, 1)},
		{"every frame", Spec{Action: ActionDrop, APIKey: AnyAPIKey}, func(int) bool { return true }},
		{"a key that is not there", Spec{Action: ActionDrop, APIKey: 9}, func(int) bool { return false }},
	}
	for _, c := range cases {
		for name, chunks := range chunkings(stream) {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				r := newPipeRig(t, c.spec)
				r.send(chunks...)
				want := without(frames, c.drop)
				dropped := 0
				for i := range frames {
					if c.drop(i) {
						dropped++
					}
				}
				waitStatus(t, r.toxic, "the drops", func(s Status) bool { return s.Fired == int64(dropped) })
				// A frame that passes after the last drop marks the end.
				r.send(requestFrame(18, 0, 999, 3))
				want = append(want, requestFrame(18, 0, 999, 3)...)
				if c.spec.APIKey == AnyAPIKey {
					want = want[:len(want)-len(requestFrame(18, 0, 999, 3))]
					waitStatus(t, r.toxic, "the last drop", func(s Status) bool { return s.Fired == int64(dropped+1) })
				}
				r.waitForBytes(want)
			})
		}
	}
}

func TestCaptureKeepsTheFrameAndForwardsIt(t *testing.T) {
	frames, headers := someRequests()
	stream := bytes.Join(frames, nil)
	for name, chunks := range chunkings(stream) {
		t.Run(name, func(t *testing.T) {
			r := newPipeRig(t, Spec{Action: ActionCapture, APIKey: 27})
			r.send(chunks...)
			r.waitForBytes(stream)
			caps := r.toxic.Captures()
			var want [][]byte
			for i, h := range headers {
				if h.APIKey == 27 {
					want = append(want, frames[i])
				}
			}
			if len(caps) != len(want) {
				t.Fatalf("%d captures, want %d", len(caps), len(want))
			}
			for i := range want {
				if !bytes.Equal(caps[i].Frame, want[i]) || caps[i].Header.APIKey != 27 {
					t.Errorf("capture %d: %+v differs from the frame", i, caps[i].Header)
				}
			}
		})
	}
}

func TestInterruptsLoseNothing(t *testing.T) {
	frames, headers := someRequests()
	stream := bytes.Join(frames, nil)
	r := newPipeRig(t, Spec{Action: ActionDrop, APIKey: 26})
	// An interrupt after every chunk, as toxiproxy does when a toxic is
	// updated or another added: Pipe returns and a new one carries on.
	for _, c := range splitRandomly(stream, rand.New(rand.NewPCG(3, 4)), 30) {
		r.send(c)
		if !r.stub.InterruptToxic() {
			t.Fatal("stub closed")
		}
		r.run()
	}
	r.waitForBytes(without(frames, func(i int) bool { return headers[i].APIKey == 26 }))
}

func TestHoldKeepsEverythingFromTheFrameOnUntilReleased(t *testing.T) {
	a, b, c := requestFrame(18, 3, 1, 20), requestFrame(27, 1, 2, 100), requestFrame(0, 9, 3, 5000)
	stream := bytes.Join([][]byte{a, b, c}, nil)
	for name, chunks := range chunkings(stream) {
		t.Run(name, func(t *testing.T) {
			r := newPipeRig(t, Spec{Action: ActionHold, APIKey: 27, Nth: 1})
			r.send(chunks...)
			r.waitForBytes(a)
			waitStatus(t, r.toxic, "everything after the frame held", func(s Status) bool {
				return s.HeldBytes == int64(len(b)+len(c))
			})
			if s := r.toxic.Status(); s.Holding != 1 || s.Fired != 1 || s.FirstFiredAt == nil {
				t.Fatalf("status while holding: %+v", s)
			}
			if got, _ := r.output(); len(got) != len(a) {
				t.Fatalf("forwarded %d bytes while holding, want %d", len(got), len(a))
			}
			// Interrupted while holding: the held bytes stay in the state.
			r.stub.InterruptToxic()
			r.run()
			more := requestFrame(27, 1, 4, 10)
			r.send(more)
			r.toxic.Release()
			r.waitForBytes(append(append([]byte(nil), stream...), more...))
			if s := r.toxic.Status(); s.Holding != 0 || s.HeldBytes != 0 || !s.Released || s.Fired != 1 || s.Matched != 2 {
				t.Errorf("status after release: %+v", s)
			}
		})
	}
}

func TestRemovalFlushesWhatIsHeld(t *testing.T) {
	a, b, c := requestFrame(18, 3, 1, 20), requestFrame(26, 4, 2, 60), requestFrame(0, 9, 3, 7)
	r := newPipeRig(t, Spec{Action: ActionHold, APIKey: 26})
	// The header of b is split so that part of it waits in the stash.
	ab := append(append([]byte(nil), a...), b[:5]...)
	r.send(ab, b[5:], c[:3])
	r.waitForBytes(a)
	waitStatus(t, r.toxic, "b held", func(s Status) bool { return s.HeldBytes == int64(len(b)+3) })
	// What toxiproxy does on removal: interrupt, then Cleanup.
	if !r.stub.InterruptToxic() {
		t.Fatal("stub closed")
	}
	r.removed = true
	go r.toxic.Cleanup(r.stub)
	r.waitForBytes(bytes.Join([][]byte{a, b, c[:3]}, nil))
	if s := r.toxic.Status(); s.Holding != 0 || s.HeldBytes != 0 {
		t.Errorf("status after removal: %+v", s)
	}
}

func TestHoldDiscardsWhatASenderThatWentAwayLeft(t *testing.T) {
	a, b := requestFrame(18, 3, 1, 20), requestFrame(27, 1, 2, 100)
	r := newPipeRig(t, Spec{Action: ActionHold, APIKey: 27})
	r.send(a, b)
	waitStatus(t, r.toxic, "b held", func(s Status) bool { return s.HeldBytes == int64(len(b)) })
	r.closeInput()
	r.waitFor("the connection closed", func(_ []byte, closed bool) bool { return closed })
	if got, _ := r.output(); !bytes.Equal(got, a) {
		t.Errorf("forwarded %d bytes, want only the %d before the hold", len(got), len(a))
	}
	if s := r.toxic.Status(); s.DiscardedBytes != int64(len(b)) || s.Holding != 0 || s.HeldBytes != 0 {
		t.Errorf("status: %+v", s)
	}
}

func TestDelayHoldsTheFrameForItsDuration(t *testing.T) {
	const delay = 150 * time.Millisecond
	a, b, c := requestFrame(18, 3, 1, 20), requestFrame(0, 9, 2, 100), requestFrame(0, 9, 3, 100)
	r := newPipeRig(t, Spec{Action: ActionDelay, APIKey: 0, Delay: delay})
	sent := time.Now()
	r.send(bytes.Join([][]byte{a, b, c}, nil))
	r.waitForBytes(bytes.Join([][]byte{a, b, c}, nil))
	// b and c are both delayed from their arrival, c behind b: at least
	// one delay in all, as the two arrived together.
	if took := time.Since(sent); took < delay {
		t.Errorf("the delayed frames came through after %v, want at least %v", took, delay)
	}
	if s := r.toxic.Status(); s.Fired != 2 || s.Holding != 0 {
		t.Errorf("status: %+v", s)
	}
}

func TestResetClosesTheConnectionAtTheFrame(t *testing.T) {
	a, b, c := requestFrame(18, 3, 1, 20), requestFrame(3, 12, 2, 30), requestFrame(0, 9, 3, 7)
	r := newPipeRig(t, Spec{Action: ActionReset, APIKey: 3})
	r.send(append(append([]byte(nil), a...), b[:20]...))
	r.waitFor("the connection closed", func(_ []byte, closed bool) bool { return closed })
	if got, _ := r.output(); !bytes.Equal(got, a) {
		t.Errorf("forwarded %d bytes, want the %d before the frame", len(got), len(a))
	}
	// The sender's further bytes are read and thrown away, so nothing
	// before the toxic blocks, until the sender's side closes.
	r.send(b[20:], c)
	r.closeInput()
	if s := r.toxic.Status(); s.Fired != 1 {
		t.Errorf("status: %+v", s)
	}
}

func TestResponsesByPosition(t *testing.T) {
	var frames [][]byte
	for i := range 4 {
		frames = append(frames, responseFrame(int32(i), 10*i))
	}
	r := newPipeRig(t, Spec{Direction: Downstream, Action: ActionDrop, APIKey: AnyAPIKey, Nth: 2})
	r.send(splitEvery(bytes.Join(frames, nil), 3)...)
	r.waitForBytes(without(frames, func(i int) bool { return i == 1 }))
}

func TestAttributes(t *testing.T) {
	bad := map[string]string{
		"no api key":             `{"action":"hold"}`,
		"no action":              `{"api_key":26}`,
		"unknown action":         `{"action":"explode","api_key":26}`,
		"delay without duration": `{"action":"delay","api_key":26}`,
		"duration without delay": `{"action":"hold","api_key":26,"delay":"1s"}`,
		"key on responses":       `{"action":"drop","api_key":26,"direction":"downstream"}`,
		"negative nth":           `{"action":"drop","api_key":26,"nth":-1}`,
		"bad duration":           `{"action":"delay","api_key":26,"delay":"soon"}`,
	}
	for name, attrs := range bad {
		if err := json.Unmarshal([]byte(attrs), new(Toxic)); err == nil {
			t.Errorf("%s: accepted %s", name, attrs)
		}
	}

	toxic := newToxic(t, Spec{Action: ActionDelay, APIKey: 0, Nth: 3, Delay: 1500 * time.Millisecond})
	if err := json.Unmarshal([]byte(`{"direction":"downstream"}`), toxic); err == nil {
		t.Error("an update changed the direction")
	}
	// An update names only what changes; a shown toxic's status is ignored.
	if err := json.Unmarshal([]byte(`{"nth":4,"status":{"fired":3}}`), toxic); err != nil {
		t.Fatal(err)
	}
	spec, _ := toxic.Spec()
	if want := (Spec{Action: ActionDelay, APIKey: 0, Direction: Upstream, Nth: 4, Delay: 1500 * time.Millisecond}); spec != want {
		t.Errorf("spec after update: %+v, want %+v", spec, want)
	}
	if err := json.Unmarshal([]byte(`{"release":true}`), toxic); err != nil || !toxic.Status().Released {
		t.Errorf("release through attributes: %v, %+v", err, toxic.Status())
	}
	shown, err := json.Marshal(struct {
		Name       string `json:"name"`
		Type       string `json:"type"`
		Attributes *Toxic `json:"attributes"`
	}{"x", TypeName, toxic})
	if err != nil {
		t.Fatal(err)
	}
	got, status, err := ParseShown(shown)
	if err != nil || got.Nth != 4 || got.Delay != 1500*time.Millisecond || !status.Released {
		t.Errorf("ParseShown(%s) = %+v, %+v, %v", shown, got, status, err)
	}
}

func TestRemovalInTheMiddleOfADroppedFrameEndsTheConnection(t *testing.T) {
	a, b := requestFrame(18, 3, 1, 20), requestFrame(0, 9, 2, 5000)
	r := newPipeRig(t, Spec{Action: ActionDrop, APIKey: 0})
	r.send(a, b[:1000])
	r.waitForBytes(a)
	waitStatus(t, r.toxic, "the drop", func(s Status) bool { return s.Fired == 1 })
	if !r.stub.InterruptToxic() {
		t.Fatal("stub closed")
	}
	r.removed = true
	r.toxic.Cleanup(r.stub)
	// The rest of b must not reach the receiver without its head.
	r.send(b[1000:])
	r.waitFor("the connection closed", func(_ []byte, closed bool) bool { return closed })
	if got, _ := r.output(); !bytes.Equal(got, a) {
		t.Errorf("forwarded %d bytes, want only the %d before the dropped frame", len(got), len(a))
	}
}
