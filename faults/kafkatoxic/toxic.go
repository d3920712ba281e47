package kafkatoxic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

// Toxic is the Kafka-aware toxic. toxiproxy makes one per toxic added to a
// proxy (from the registered prototype) and shares it between all the
// connections of that proxy in the toxic's direction; what belongs to one
// connection lives in the stub's state (connState).
//
// Concurrency: the spec is written by toxiproxy's JSON decoding (add and
// update) through UnmarshalJSON and read by every connection's Pipe, both
// under mu; the counters are atomic. So, unlike toxiproxy's own toxics, an
// update does not race with the running links.
type Toxic struct {
	mu         sync.Mutex
	spec       Spec
	configured bool
	released   bool
	release    chan struct{} // closed by Release
	fired      chan struct{} // closed when the action first fires
	firstFired time.Time
	lastFired  time.Time
	captures   []Capture
	capDropped int64

	matched   atomic.Int64
	firedN    atomic.Int64
	holding   atomic.Int64
	heldBytes atomic.Int64
	discarded atomic.Int64
	desynced  atomic.Int64
}

var (
	_ toxics.Toxic         = (*Toxic)(nil)
	_ toxics.StatefulToxic = (*Toxic)(nil)
	_ toxics.CleanupToxic  = (*Toxic)(nil)
)

// maxCaptureFrame bounds one captured frame: capture is for small control
// requests (EndTxn), not for copying produce traffic.
const maxCaptureFrame = 8 << 20

// NewState gives each connection (one direction of it) its own parser and
// buffers; toxiproxy keeps it across interrupts of that connection's Pipe.
func (t *Toxic) NewState() any { return new(connState) }

// Spec returns the toxic's current spec (without its name, which toxiproxy
// keeps) and whether it has been configured at all.
func (t *Toxic) Spec() (Spec, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.spec, t.configured
}

// Release heals the toxic: every connection it holds or delays forwards its
// buffered bytes in order, and from now on the toxic only counts frames. It
// cannot be undone (add a new toxic instead). Safe to call more than once.
func (t *Toxic) Release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.releaseLocked()
}

func (t *Toxic) releaseLocked() {
	if t.released {
		return
	}
	t.released = true
	close(t.releaseChLocked())
}

func (t *Toxic) releaseChLocked() chan struct{} {
	if t.release == nil {
		t.release = make(chan struct{})
	}
	return t.release
}

func (t *Toxic) releaseCh() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.releaseChLocked()
}

func (t *Toxic) isReleased() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.released
}

// Fired is closed when the toxic's action first fires.
func (t *Toxic) Fired() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.firedChLocked()
}

func (t *Toxic) firedChLocked() chan struct{} {
	if t.fired == nil {
		t.fired = make(chan struct{})
	}
	return t.fired
}

// WaitFired waits until the toxic's action first fires, or ctx ends.
func (t *Toxic) WaitFired(ctx context.Context) error {
	select {
	case <-t.Fired():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for kafka toxic to fire: %w", context.Cause(ctx))
	}
}

func (t *Toxic) recordFire(now time.Time) {
	t.firedN.Add(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.firstFired.IsZero() {
		t.firstFired = now
		close(t.firedChLocked())
	}
	t.lastFired = now
}

func (t *Toxic) addCapture(c Capture, limit int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.captures) >= limit {
		t.capDropped++
		return
	}
	t.captures = append(t.captures, c)
}

// Status returns what the toxic has done so far.
func (t *Toxic) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := Status{
		Matched:         t.matched.Load(),
		Fired:           t.firedN.Load(),
		Released:        t.released,
		Holding:         t.holding.Load(),
		HeldBytes:       t.heldBytes.Load(),
		DiscardedBytes:  t.discarded.Load(),
		Desynced:        t.desynced.Load(),
		Captures:        append([]Capture(nil), t.captures...),
		CapturesDropped: t.capDropped,
	}
	if !t.firstFired.IsZero() {
		first, last := t.firstFired, t.lastFired
		s.FirstFiredAt, s.LastFiredAt = &first, &last
	}
	return s
}

// Captures returns the frames ActionCapture kept, oldest first.
func (t *Toxic) Captures() []Capture { return t.Status().Captures }

// MarshalJSON shows the toxic's attributes and, under "status", its Status:
// toxiproxy's API marshals a toxic's attributes with this, so GET
// /proxies/{proxy}/toxics/{name} tells a remote caller whether it fired.
func (t *Toxic) MarshalJSON() ([]byte, error) {
	spec, _ := t.Spec()
	return json.Marshal(struct {
		wireAttributes
		Release bool   `json:"release"`
		Status  Status `json:"status"`
	}{spec.wire(), t.isReleased(), t.Status()})
}

// UnmarshalJSON takes attributes from toxiproxy (a new toxic, or an update
// that names only what it changes). A new toxic must name its action and
// api key. "release": true releases the toxic at once. Unknown keys (such as
// the "status" a GET returned) are ignored.
func (t *Toxic) UnmarshalJSON(b []byte) error {
	var w wireAttributes
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("decode kafka toxic attributes: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.configured && (w.Action == nil || w.APIKey == nil) {
		return errors.New("decode kafka toxic attributes: action and api_key are required (api_key -1 matches any)")
	}
	spec, err := w.apply(t.spec)
	if err != nil {
		return fmt.Errorf("decode kafka toxic attributes: %w", err)
	}
	if err := spec.Validate(); err != nil {
		return err
	}
	// A connection's parser was set up for one kind of frame.
	if t.configured && spec.direction() != t.spec.direction() {
		return fmt.Errorf("decode kafka toxic attributes: direction cannot change (%s to %s)", t.spec.direction(), spec.direction())
	}
	t.spec, t.configured = spec, true
	if w.Release != nil && *w.Release {
		t.releaseLocked()
	}
	return nil
}
