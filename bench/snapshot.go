package bench

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"maps"
	"os"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// DefaultInterval is the time slot a Recorder files values under. Phases (before,
// during, after a fault) and plots over time are cut at slot boundaries, so the
// slot is the precision of those cuts; 100 ms keeps a short fault's window
// distinct while a slot stays small (a sparse histogram of a few hundred bytes).
const DefaultInterval = 100 * time.Millisecond

// Snapshot is everything a Recorder has recorded, by metric and time slot: the
// unit that is merged (several workers' into the orchestrator's), written to a
// file, read back and summarized. A Snapshot is not safe for concurrent use.
//
// Latency metrics hold a sparse HDR histogram per slot; counters (records,
// transactions, dropped_iterations) hold a count per slot. A value belongs to the
// slot of the time it was recorded "at": for latencies measured from an intended
// start, that start, so a stall shows where it began.
type Snapshot struct {
	interval  time.Duration
	latencies map[string]map[int64]*hdr.PackedHistogram
	counters  map[string]map[int64]int64
}

// NewSnapshot returns an empty snapshot whose slots are interval long
// (DefaultInterval when 0).
func NewSnapshot(interval time.Duration) *Snapshot {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Snapshot{
		interval:  interval,
		latencies: map[string]map[int64]*hdr.PackedHistogram{},
		counters:  map[string]map[int64]int64{},
	}
}

// Interval is the length of a time slot.
func (s *Snapshot) Interval() time.Duration { return s.interval }

// slotOf is the slot index of t. Indexes count from the Unix epoch, so the
// slots of different processes line up without agreeing on a start.
func (s *Snapshot) slotOf(t time.Time) int64 { return t.UnixNano() / int64(s.interval) }

func (s *Snapshot) slotStart(i int64) time.Time { return time.Unix(0, i*int64(s.interval)) }

func (s *Snapshot) record(metric string, at time.Time, v int64, expectedInterval int64) {
	slots := s.latencies[metric]
	if slots == nil {
		slots = map[int64]*hdr.PackedHistogram{}
		s.latencies[metric] = slots
	}
	i := s.slotOf(at)
	h := slots[i]
	if h == nil {
		h = hdr.NewPacked(lowestDiscernible, highestTrackable, significantDigits)
		slots[i] = h
	}
	// Cannot fail: v is clamped into range by the caller.
	if expectedInterval > 0 {
		_ = h.RecordCorrectedValue(v, expectedInterval)
		return
	}
	_ = h.RecordValue(v)
}

func (s *Snapshot) add(counter string, at time.Time, n int64) {
	slots := s.counters[counter]
	if slots == nil {
		slots = map[int64]int64{}
		s.counters[counter] = slots
	}
	// A zero only declares the counter (so a threshold on it finds 0, not
	// "never recorded"); it needs no slot.
	if n != 0 {
		slots[s.slotOf(at)] += n
	}
}

// Latencies lists the latency metrics, sorted.
func (s *Snapshot) Latencies() []string { return slices.Sorted(maps.Keys(s.latencies)) }

// Counters lists the counters, sorted.
func (s *Snapshot) Counters() []string { return slices.Sorted(maps.Keys(s.counters)) }

// HasLatency says whether metric was recorded as a latency.
func (s *Snapshot) HasLatency(metric string) bool { _, ok := s.latencies[metric]; return ok }

// Histogram merges every slot of metric; empty when it was never recorded.
func (s *Snapshot) Histogram(metric string) *Histogram {
	return s.histogramWhere(metric, func(int64) bool { return true })
}

// HistogramBetween merges the slots of metric that overlap [from, to).
func (s *Snapshot) HistogramBetween(metric string, from, to time.Time) *Histogram {
	return s.histogramWhere(metric, func(i int64) bool {
		start := s.slotStart(i)
		return start.Before(to) && start.Add(s.interval).After(from)
	})
}

func (s *Snapshot) histogramWhere(metric string, keep func(slot int64) bool) *Histogram {
	h := NewHistogram()
	for i, p := range s.latencies[metric] {
		if keep(i) {
			p.MergeInto(h.h)
		}
	}
	return h
}

// Counter is the total of counter; ok is false when it was never recorded nor
// declared.
func (s *Snapshot) Counter(name string) (total int64, ok bool) {
	slots, ok := s.counters[name]
	for _, n := range slots {
		total += n
	}
	return total, ok
}

// Span is the time from the start of the first slot holding anything to the end
// of the last one; zero times when the snapshot is empty.
func (s *Snapshot) Span() (start, end time.Time) {
	first, last, any := s.slotRange()
	if !any {
		return time.Time{}, time.Time{}
	}
	return s.slotStart(first), s.slotStart(last + 1)
}

func (s *Snapshot) slotRange() (first, last int64, any bool) {
	see := func(i int64) {
		if !any || i < first {
			first = i
		}
		if !any || i > last {
			last = i
		}
		any = true
	}
	for _, slots := range s.latencies {
		for i := range slots {
			see(i)
		}
	}
	for _, slots := range s.counters {
		for i := range slots {
			see(i)
		}
	}
	return first, last, any
}

// Clone returns an independent copy.
func (s *Snapshot) Clone() *Snapshot {
	c := NewSnapshot(s.interval)
	if err := c.Merge(s); err != nil {
		// Same interval on both sides: Merge cannot fail.
		panic(err)
	}
	return c
}

// Merge adds every value of other to s. Both must use the same slot interval.
func (s *Snapshot) Merge(other *Snapshot) error {
	if other == nil {
		return nil
	}
	if other.interval != s.interval {
		return fmt.Errorf("merge snapshots: slot intervals differ (%v and %v)", s.interval, other.interval)
	}
	for metric, slots := range other.latencies {
		mine := s.latencies[metric]
		if mine == nil {
			mine = map[int64]*hdr.PackedHistogram{}
			s.latencies[metric] = mine
		}
		for i, p := range slots {
			if h := mine[i]; h != nil {
				h.Merge(p)
			} else {
				mine[i] = p.Clone()
			}
		}
	}
	for name, slots := range other.counters {
		mine := s.counters[name]
		if mine == nil {
			mine = map[int64]int64{}
			s.counters[name] = mine
		}
		for i, n := range slots {
			mine[i] += n
		}
	}
	return nil
}

// snapshotFile is the JSON form: slots in time order, each slot's histogram as
// its populated buckets (see encodeBuckets). Not HdrHistogram's V2 encoding:
// that deflates every histogram with a fresh zlib writer, and a five-minute
// run has thousands of slots per metric (measured: 2.5 s to write 12,000 slots,
// against milliseconds this way). For other tools, write .hgrm files or
// Histogram.Encode of the merged histogram.
type snapshotFile struct {
	Version   int                          `json:"version"`
	Interval  string                       `json:"interval"`
	Latencies map[string][]latencySlotFile `json:"latencies"`
	Counters  map[string][]counterSlotFile `json:"counters"`
}

type latencySlotFile struct {
	// Start is the slot's start, Unix nanoseconds.
	Start int64 `json:"start_ns"`
	// Buckets: base64 of encodeBuckets.
	Buckets string `json:"buckets"`
}

type counterSlotFile struct {
	Start int64 `json:"start_ns"`
	N     int64 `json:"n"`
}

const snapshotVersion = 1

// MarshalJSON writes the snapshot in its file form.
func (s *Snapshot) MarshalJSON() ([]byte, error) {
	f := snapshotFile{
		Version:   snapshotVersion,
		Interval:  s.interval.String(),
		Latencies: map[string][]latencySlotFile{},
		Counters:  map[string][]counterSlotFile{},
	}
	for metric, slots := range s.latencies {
		out := []latencySlotFile{}
		for _, i := range slices.Sorted(maps.Keys(slots)) {
			out = append(out, latencySlotFile{Start: i * int64(s.interval), Buckets: base64.StdEncoding.EncodeToString(encodeBuckets(slots[i]))})
		}
		f.Latencies[metric] = out
	}
	for name, slots := range s.counters {
		out := []counterSlotFile{}
		for _, i := range slices.Sorted(maps.Keys(slots)) {
			out = append(out, counterSlotFile{Start: i * int64(s.interval), N: slots[i]})
		}
		f.Counters[name] = out
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	var f snapshotFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("read snapshot: %w", err)
	}
	if f.Version != snapshotVersion {
		return fmt.Errorf("read snapshot: version %d, want %d", f.Version, snapshotVersion)
	}
	interval, err := time.ParseDuration(f.Interval)
	if err != nil || interval <= 0 {
		return fmt.Errorf("read snapshot: bad interval %q", f.Interval)
	}
	*s = *NewSnapshot(interval)
	for metric, slots := range f.Latencies {
		m := map[int64]*hdr.PackedHistogram{}
		for _, sl := range slots {
			raw, err := base64.StdEncoding.DecodeString(sl.Buckets)
			if err != nil {
				return fmt.Errorf("read snapshot %s: %w", metric, err)
			}
			p, err := decodeBuckets(raw)
			if err != nil {
				return fmt.Errorf("read snapshot %s: %w", metric, err)
			}
			i := sl.Start / int64(interval)
			if h := m[i]; h != nil {
				h.Merge(p)
			} else {
				m[i] = p
			}
		}
		s.latencies[metric] = m
	}
	for name, slots := range f.Counters {
		m := map[int64]int64{}
		for _, sl := range slots {
			m[sl.Start/int64(interval)] += sl.N
		}
		s.counters[name] = m
	}
	return nil
}

// WriteFile writes the snapshot as JSON, atomically: a worker killed while
// writing leaves the previous file whole.
func (s *Snapshot) WriteFile(path string) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("write snapshot %s: %w", path, err)
	}
	return atomicfile.Write(path, b)
}

// ReadSnapshotFile reads a file WriteFile wrote.
func ReadSnapshotFile(path string) (*Snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	s := &Snapshot{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", path, err)
	}
	return s, nil
}

// encodeBuckets writes a slot histogram's populated buckets in ascending value
// order as uvarint pairs: the value's distance from the previous bucket's
// value, then the count. Every snapshot has the suite's geometry, so the
// buckets alone rebuild it.
func encodeBuckets(p *hdr.PackedHistogram) []byte {
	var out []byte
	prev := int64(0)
	for value, count := range p.ForEachBucket {
		out = binary.AppendUvarint(out, uint64(value-prev))
		out = binary.AppendUvarint(out, uint64(count))
		prev = value
	}
	return out
}

func decodeBuckets(b []byte) (*hdr.PackedHistogram, error) {
	p := hdr.NewPacked(lowestDiscernible, highestTrackable, significantDigits)
	value := int64(0)
	for len(b) > 0 {
		delta, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad bucket value")
		}
		b = b[n:]
		count, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad bucket count")
		}
		b = b[n:]
		value += int64(delta)
		if err := p.RecordValues(value, int64(count)); err != nil {
			return nil, fmt.Errorf("bad bucket: %w", err)
		}
	}
	return p, nil
}

// sortedSlots returns a metric's slot indexes in time order.
func sortedSlots[V any](slots map[int64]V) []int64 {
	return slices.SortedFunc(maps.Keys(slots), cmp.Compare[int64])
}
