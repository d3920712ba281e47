package barrier

import (
	"testing"
)

func isOpen(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestStepsOpenWhenEveryPartyReachedThem: a step opens on its last party,
// reaching a later step passes the earlier ones, a party that leaves passes
// every step, and reaching again counts once.
func TestStepsOpenWhenEveryPartyReachedThem(t *testing.T) {
	b := New(3, 3)
	b.Reach("a", 0)
	b.Reach("a", 0)
	b.Reach("b", 0)
	if isOpen(b.Opened(0)) {
		t.Fatal("step 0 open with 2 of 3 parties (one counted twice?)")
	}
	b.Reach("c", 1) // passes step 0 too
	if !isOpen(b.Opened(0)) || isOpen(b.Opened(1)) {
		t.Fatalf("after c reached 1: step 0 open %v, step 1 open %v", isOpen(b.Opened(0)), isOpen(b.Opened(1)))
	}
	b.Leave("a")
	b.Reach("a", 2) // ignored after Leave
	b.Reach("b", 2)
	if !isOpen(b.Opened(1)) || isOpen(b.Opened(2)) {
		t.Fatalf("step 1 open %v, step 2 open %v; want step 2 waiting for c", isOpen(b.Opened(1)), isOpen(b.Opened(2)))
	}
	b.Leave("c")
	if !isOpen(b.Opened(2)) || !b.Left("c") || b.Left("b") {
		t.Fatal("step 2 should open once c left")
	}
}

// TestNoParties: a barrier of nobody is open throughout.
func TestNoParties(t *testing.T) {
	b := New(0, 2)
	if !isOpen(b.Opened(0)) || !isOpen(b.Opened(1)) {
		t.Fatal("a barrier of no parties waits")
	}
}
