package bench

import (
	"sync"
	"time"
)

// Recorder records named metrics into HDR histograms, safe for concurrent use
// by any number of goroutines. Values are filed by the time they happened "at"
// (see Snapshot), so they can later be split into phases around a fault and
// plotted over time.
//
// Coordinated omission: a latency must include the time an operation waited to
// start. Either measure it from the intended start (the Driver does; use
// Record or RecordSince with that start), or, for a closed loop that expects
// one operation every interval, use RecordCorrected. Never both.
type Recorder struct {
	mu   sync.Mutex
	snap *Snapshot
}

// NewRecorder returns a recorder with time slots of interval (DefaultInterval
// when 0).
func NewRecorder(interval time.Duration) *Recorder {
	return &Recorder{snap: NewSnapshot(interval)}
}

// Record files latency d of metric under time at.
func (r *Recorder) Record(metric string, at time.Time, d time.Duration) {
	v := clampValue(d)
	r.mu.Lock()
	r.snap.record(metric, at, v, 0)
	r.mu.Unlock()
}

// RecordSince records the time elapsed since start (pass the intended start
// to be coordinated-omission correct), filed under start, and returns it.
func (r *Recorder) RecordSince(metric string, start time.Time) time.Duration {
	d := time.Since(start)
	r.Record(metric, start, d)
	return d
}

// RecordCorrected records d and, when d exceeds expectedInterval, the values
// a recorder sampling every expectedInterval would have seen during the stall
// (HdrHistogram's RecordCorrectedValue). For closed loops only.
func (r *Recorder) RecordCorrected(metric string, at time.Time, d, expectedInterval time.Duration) {
	v := clampValue(d)
	r.mu.Lock()
	r.snap.record(metric, at, v, int64(expectedInterval))
	r.mu.Unlock()
}

// Add adds n to counter at time at. Add(name, at, 0) declares a counter, so a
// threshold on it reads 0 instead of "never recorded".
func (r *Recorder) Add(counter string, at time.Time, n int64) {
	r.mu.Lock()
	r.snap.add(counter, at, n)
	r.mu.Unlock()
}

// Snapshot returns a copy of everything recorded so far; recording goes on.
func (r *Recorder) Snapshot() *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snap.Clone()
}

// Interval is the recorder's time slot.
func (r *Recorder) Interval() time.Duration { return r.snap.interval }
