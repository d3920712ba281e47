package cell

import (
	"context"
	"testing"
)

// TestHoldInputHead: a fault that waits for a fraction gets a head of twice
// it, one that picks its own moment a tenth, one that acts at once or a head
// that would be the whole input holds nothing; the held records count in
// the cell's total.
func TestHoldInputHead(t *testing.T) {
	for _, c := range []struct {
		records   int
		fraction  float64
		ownMoment bool
		head      int
		held      int64
	}{
		{400, 0.1, false, 80, 320},
		{1000, 0.2, false, 400, 600},
		{1000, 0, true, 100, 900},
		{1000, 0, false, 1000, 0}, // acts at once: nothing held
		{7, 0.1, false, 2, 5},
		{400, 0.5, false, 400, 0},
		{1, 0.1, false, 1, 0},
	} {
		h := holdInput(context.Background(), nil, c.records, c.fraction, c.ownMoment)
		if got := h.head(c.records); got != c.head {
			t.Errorf("records %d, fraction %g: head %d, want %d", c.records, c.fraction, got, c.head)
		}
		if got := h.count(); got != c.held {
			t.Errorf("records %d, fraction %g: held %d, want %d", c.records, c.fraction, got, c.held)
		}
		if int64(h.head(c.records))+h.count() != int64(c.records) {
			t.Errorf("records %d, fraction %g: head and held do not add up", c.records, c.fraction)
		}
		// A cell whose fault never took hold ends without waiting.
		h.wait()
		h.release() // after wait: a no-op, not a second write
		if err := h.failure(); err != nil {
			t.Errorf("never released: failure %v", err)
		}
	}
}
