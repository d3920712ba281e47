// Package barrier is a small N-party barrier with ordered steps: each party
// says how far it got, and each step opens once every party reached it. A
// party that leaves early counts as having passed every step, so the others
// never wait for it (the cells of one shared fault's row: a cell that ends
// early must not hold the fault or the heal back).
package barrier

import "sync"

// Barrier coordinates a fixed number of parties through steps 0..steps-1.
// Its methods are safe for concurrent use.
type Barrier struct {
	mu      sync.Mutex
	parties int
	reached map[any]int // how many steps each party passed (its next step)
	left    map[any]bool
	count   []int // per step, the parties that passed it
	open    []chan struct{}
}

// New is a barrier of parties over steps steps.
func New(parties, steps int) *Barrier {
	b := &Barrier{parties: parties, reached: map[any]int{}, left: map[any]bool{},
		count: make([]int, steps), open: make([]chan struct{}, steps)}
	for i := range b.open {
		b.open[i] = make(chan struct{})
	}
	if parties <= 0 {
		for _, ch := range b.open {
			close(ch)
		}
	}
	return b
}

// Reach says p got to step (and so passed every step before it). Reaching
// a step again, or an earlier one, changes nothing; after Leave, nothing
// does.
func (b *Barrier) Reach(p any, step int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.left[p] {
		return
	}
	b.passTo(p, step+1)
}

// Leave says p stopped: every step it had not reached counts as passed.
func (b *Barrier) Leave(p any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.left[p] {
		return
	}
	b.passTo(p, len(b.count))
	b.left[p] = true
}

// passTo moves p's passed steps up to next (exclusive); b.mu is held.
func (b *Barrier) passTo(p any, next int) {
	for s := b.reached[p]; s < next && s < len(b.count); s++ {
		b.count[s]++
		if b.count[s] == b.parties {
			close(b.open[s])
		}
	}
	if next > b.reached[p] {
		b.reached[p] = min(next, len(b.count))
	}
}

// Opened is closed once every party reached step (or left).
func (b *Barrier) Opened(step int) <-chan struct{} { return b.open[step] }

// Left reports whether p left.
func (b *Barrier) Left(p any) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left[p]
}
