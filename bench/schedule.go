package bench

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"time"
)

// Schedule says when iterations are meant to start: at a fixed Rate (open loop)
// or back to back (closed loop, Rate 0), for at most Count iterations and at
// most Duration, whichever ends first. At least one bound is required, so every
// run stops by itself.
type Schedule struct {
	// Rate is iterations (transactions) per second; 0 runs closed loop: each
	// worker starts its next iteration as soon as the previous returns.
	Rate float64
	// Duration bounds the time over which iterations start; 0: no time bound.
	Duration time.Duration
	// Count bounds the number of iterations scheduled; 0: no count bound.
	Count int64
}

// Tick is one scheduled iteration: its sequence number (from 0) and the time
// it was meant to start. Latency counts from Intended, so time spent waiting
// behind a slow iteration is part of it (no coordinated omission).
type Tick struct {
	Seq      int64
	Intended time.Time
}

// Validate reports a schedule that would never stop or makes no sense.
func (s Schedule) Validate() error {
	switch {
	case s.Rate < 0 || math.IsNaN(s.Rate) || math.IsInf(s.Rate, 0):
		return fmt.Errorf("check schedule: rate %v is not a rate", s.Rate)
	case s.Duration < 0:
		return fmt.Errorf("check schedule: negative duration %v", s.Duration)
	case s.Count < 0:
		return fmt.Errorf("check schedule: negative count %d", s.Count)
	case s.Duration == 0 && s.Count == 0:
		return errors.New("check schedule: neither a duration nor a count bounds it")
	}
	return nil
}

// Open says whether the schedule is open loop (a target rate).
func (s Schedule) Open() bool { return s.Rate > 0 }

// Interval is the time between two intended starts; 0 for a closed loop.
func (s Schedule) Interval() time.Duration {
	if !s.Open() {
		return 0
	}
	return time.Duration(float64(time.Second) / s.Rate)
}

// At is the intended start of iteration seq. Computed from start each time,
// so rounding never accumulates over a long run.
func (s Schedule) At(start time.Time, seq int64) time.Time {
	return start.Add(time.Duration(float64(seq) * float64(time.Second) / s.Rate))
}

// Ticks yields the intended starts of an open-loop schedule beginning at start,
// until Count ticks or until Duration after start (exclusive). It only computes
// times; waiting for them is the Driver's job. A closed-loop schedule yields
// nothing: its starts are not planned.
func (s Schedule) Ticks(start time.Time) iter.Seq[Tick] {
	return func(yield func(Tick) bool) {
		if !s.Open() {
			return
		}
		end := start.Add(s.Duration)
		for seq := int64(0); s.Count == 0 || seq < s.Count; seq++ {
			at := s.At(start, seq)
			if s.Duration > 0 && !at.Before(end) {
				return
			}
			if !yield(Tick{Seq: seq, Intended: at}) {
				return
			}
		}
	}
}
