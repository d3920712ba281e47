package bench

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestRecorderConcurrentRecording(t *testing.T) {
	r := NewRecorder(0)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				at := t0.Add(time.Duration(i) * time.Millisecond)
				r.Record(TxnCommitDuration, at, time.Millisecond)
				r.Add(Transactions, at, 1)
			}
		}()
	}
	wg.Wait()
	s := r.Snapshot()
	if n := s.Histogram(TxnCommitDuration).Count(); n != 8000 {
		t.Fatalf("recorded %d, want 8000", n)
	}
	if n, _ := s.Counter(Transactions); n != 8000 {
		t.Fatalf("counted %d, want 8000", n)
	}
	start, end := s.Span()
	if !start.Equal(t0) || !end.Equal(t0.Add(time.Second)) {
		t.Fatalf("span %v..%v, want 1 s from %v", start, end, t0)
	}
}

// The heart of coordinated omission: a stall of 1 s in a loop that expects a
// value every 10 ms hides ~100 slow operations. Recorded plainly it is one
// outlier and p99 stays at the normal latency; corrected, p99 shows the stall.
func TestRecordCorrectedRaisesPercentilesAfterStall(t *testing.T) {
	r := NewRecorder(0)
	const expected = 10 * time.Millisecond
	for i := 0; i < 1000; i++ {
		d := time.Millisecond
		if i == 500 {
			d = time.Second // the stall
		}
		at := t0.Add(time.Duration(i) * expected)
		r.Record("plain", at, d)
		r.RecordCorrected("corrected", at, d, expected)
	}
	s := r.Snapshot()
	plain, corr := s.Histogram("plain"), s.Histogram("corrected")
	if plain.Quantile(99) > 2*time.Millisecond {
		t.Fatalf("uncorrected p99 %v: want the normal latency (the stall is one value)", plain.Quantile(99))
	}
	if corr.Quantile(99) < 500*time.Millisecond {
		t.Fatalf("corrected p99 %v: want the stall to show (>= 500ms)", corr.Quantile(99))
	}
	if corr.Count() < 1090 {
		t.Fatalf("corrected count %d: want the ~99 values the stall hid added", corr.Count())
	}
}

func TestSnapshotJSONRoundTripAndMerge(t *testing.T) {
	a, b := NewRecorder(0), NewRecorder(0)
	for i := 0; i < 50; i++ {
		at := t0.Add(time.Duration(i) * 50 * time.Millisecond)
		a.Record(TxnCommitDuration, at, time.Duration(i+1)*time.Millisecond)
		b.Record(TxnCommitDuration, at, time.Duration(i+100)*time.Millisecond)
		b.Record(E2ELatency, at, time.Second)
	}
	a.Add(DroppedIterations, t0, 0) // declared, never incremented
	b.Add(DroppedIterations, t0.Add(time.Second), 3)

	// A worker writes its snapshot to a file; the orchestrator reads and merges.
	dir := t.TempDir()
	for name, r := range map[string]*Recorder{"a.json": a, "b.json": b} {
		if err := r.Snapshot().WriteFile(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	merged := NewSnapshot(0)
	for _, name := range []string{"a.json", "b.json"} {
		s, err := ReadSnapshotFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := merged.Merge(s); err != nil {
			t.Fatal(err)
		}
	}
	want := a.Snapshot()
	if err := want.Merge(b.Snapshot()); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{TxnCommitDuration, E2ELatency} {
		if got, w := merged.Histogram(m).Percentiles(), want.Histogram(m).Percentiles(); got != w {
			t.Fatalf("%s after the file round trip: %+v, want %+v", m, got, w)
		}
	}
	if n, ok := merged.Counter(DroppedIterations); !ok || n != 3 {
		t.Fatalf("dropped_iterations %d %v, want 3", n, ok)
	}
	if n, _ := merged.Counter(DroppedIterations); n != 3 {
		t.Fatal(n)
	}
	if merged.Histogram(TxnCommitDuration).Count() != 100 {
		t.Fatal("merge lost values")
	}
	// A declared counter survives JSON.
	var back Snapshot
	raw, _ := json.Marshal(a.Snapshot())
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if n, ok := back.Counter(DroppedIterations); !ok || n != 0 {
		t.Fatalf("declared counter after JSON: %d %v, want 0 true", n, ok)
	}
	// Different slot intervals do not merge.
	if err := NewSnapshot(time.Second).Merge(a.Snapshot()); err == nil {
		t.Fatal("merging snapshots with different intervals must fail")
	}
	if err := json.Unmarshal([]byte(`{"version":9}`), &back); err == nil {
		t.Fatal("an unknown version must fail")
	}
}

func TestPhasesAroundAFault(t *testing.T) {
	r := NewRecorder(100 * time.Millisecond)
	// 10 s of one value per 10 ms: 1 ms before, 50 ms during [4s, 6s), 2 ms after.
	for i := 0; i < 1000; i++ {
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		d := time.Millisecond
		switch off := at.Sub(t0); {
		case off >= 4*time.Second && off < 6*time.Second:
			d = 50 * time.Millisecond
		case off >= 6*time.Second:
			d = 2 * time.Millisecond
		}
		r.Record(TxnCommitDuration, at, d)
	}
	win := []Window{{Name: "broker-kill", Start: t0.Add(4 * time.Second), End: t0.Add(6 * time.Second)}}
	ph := r.Snapshot().PhaseHistograms(TxnCommitDuration, win)
	if n := ph[Before].Count(); n != 400 {
		t.Fatalf("before: %d values, want 400", n)
	}
	if n := ph[During].Count(); n != 200 {
		t.Fatalf("during: %d values, want 200", n)
	}
	if n := ph[After].Count(); n != 400 {
		t.Fatalf("after: %d values, want 400", n)
	}
	if ph[During].Quantile(50) < 49*time.Millisecond || ph[Before].Max() > 2*time.Millisecond {
		t.Fatal("phases mixed up their values")
	}
	sum := r.Snapshot().LatencySummary(win)
	for _, k := range []string{"txn_commit_duration", "txn_commit_duration/before", "txn_commit_duration/during", "txn_commit_duration/after"} {
		if sum[k].Count == 0 {
			t.Fatalf("summary lacks %q: %v", k, sum)
		}
	}
	if len(r.Snapshot().LatencySummary(nil)) != 1 {
		t.Fatal("without windows the summary has only the whole run")
	}
}

func TestPhaseOf(t *testing.T) {
	s := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	wins := []Window{{Start: s(10), End: s(20)}, {Start: s(30), End: s(30)}} // one window, one instant
	cases := []struct {
		from, to float64
		want     Phase
	}{
		{0, 1, Before},
		{9, 10, Before},     // ends exactly where the fault starts
		{9.5, 10.5, During}, // straddles the start
		{15, 16, During},
		{19.9, 20.1, During},
		{20, 21, After},
		{29, 29.9, After},    // between two faults
		{29.9, 30.1, During}, // holds the instant
		{30, 30.1, During},
		{30.1, 31, After},
	}
	for _, c := range cases {
		if got := PhaseOf(s(c.from), s(c.to), wins); got != c.want {
			t.Errorf("[%v, %v): %s, want %s", c.from, c.to, got, c.want)
		}
	}
	if PhaseOf(s(0), s(1), nil) != Before {
		t.Error("no windows: everything is before")
	}
}

func TestOverTimeSeries(t *testing.T) {
	r := NewRecorder(100 * time.Millisecond)
	// 3 s: 100 tx/s, except nothing in second 1 (a stall).
	for i := 0; i < 300; i++ {
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		if at.Sub(t0) >= time.Second && at.Sub(t0) < 2*time.Second {
			continue
		}
		r.Record(TxnTotalDuration, at, 5*time.Millisecond)
		r.Add(Transactions, at, 1)
	}
	s := r.Snapshot()
	thr := s.RateOverTime(Transactions, t0, time.Second)
	if len(thr.Points) != 3 {
		t.Fatalf("throughput points %+v, want 3 (the stall as a zero)", thr.Points)
	}
	if thr.Points[0].Value != 100 || thr.Points[1].Value != 0 || thr.Points[2].Value != 100 {
		t.Fatalf("throughput %+v", thr.Points)
	}
	lat := s.LatencyOverTime(TxnTotalDuration, t0, time.Second, 99)
	if len(lat.Points) != 2 || lat.Points[1].Offset != 2*time.Second {
		t.Fatalf("latency points %+v, want seconds 0 and 2", lat.Points)
	}
	figs := s.CellFigures(t0, []Window{{Name: "f", Start: t0.Add(time.Second), End: t0.Add(2 * time.Second)}},
		[]string{TxnTotalDuration}, []string{Transactions})
	if len(figs) != 3 || len(figs[0].Spectra) != 1 || len(figs[1].Series) != 2 || len(figs[2].Shades) != 1 {
		t.Fatalf("figures %+v", figs)
	}
}

func TestWriteHGRMs(t *testing.T) {
	r := NewRecorder(0)
	r.Record(TxnCommitDuration, t0, time.Millisecond)
	r.Record(E2ELatency, t0, time.Millisecond)
	r.Add(Transactions, t0, 1)
	names, err := r.Snapshot().WriteHGRMs(t.TempDir(), "explicit-")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 || names[0] != "explicit-e2e_latency.hgrm" || names[1] != "explicit-txn_commit_duration.hgrm" {
		t.Fatalf("wrote %v", names)
	}
}

// go test -bench Record -run '^$' ./bench prints ns/op for recording.
func BenchmarkRecorderRecord(b *testing.B) {
	r := NewRecorder(0)
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r.Record(TxnCommitDuration, now.Add(time.Duration(i)*time.Microsecond), time.Duration(1000+i%50000)*time.Microsecond)
	}
}

func BenchmarkRecorderRecordParallel(b *testing.B) {
	r := NewRecorder(0)
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			r.Record(TxnCommitDuration, now.Add(time.Duration(i)*time.Microsecond), time.Duration(1000+i%50000)*time.Microsecond)
		}
	})
}
