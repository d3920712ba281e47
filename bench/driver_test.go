package bench

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestScheduleTicks(t *testing.T) {
	s := Schedule{Rate: 4, Duration: time.Second}
	var got []time.Duration
	for tk := range s.Ticks(t0) {
		got = append(got, tk.Intended.Sub(t0))
	}
	want := []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond}
	if len(got) != len(want) {
		t.Fatalf("ticks %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ticks %v, want %v", got, want)
		}
	}
	n := 0
	for range (Schedule{Rate: 1000, Count: 7, Duration: time.Hour}).Ticks(t0) {
		n++
	}
	if n != 7 {
		t.Fatalf("count bound: %d ticks, want 7", n)
	}
	// Far into a long run, intended starts do not drift from start + seq/rate.
	if at := (Schedule{Rate: 3}).At(t0, 3_000_000); at.Sub(t0) != 1_000_000*time.Second {
		t.Fatalf("tick 3e6 at %v, want 1e6 s", at.Sub(t0))
	}
	for _, bad := range []Schedule{{Rate: 10}, {Rate: -1, Count: 1}, {Count: -1}, {Duration: -time.Second}} {
		if bad.Validate() == nil {
			t.Errorf("schedule %+v must not validate", bad)
		}
	}
}

// An injected stall raises the latency measured from the intended start
// (coordinated omission handled), while the service time, what a harness that
// times only the call would report, barely moves.
func TestDriverStallRaisesCorrectedPercentiles(t *testing.T) {
	rec := NewRecorder(0)
	d := &Driver{
		Schedule:      Schedule{Rate: 100, Duration: 2 * time.Second},
		Recorder:      rec,
		Metric:        TxnTotalDuration,
		ServiceMetric: "service_time",
	}
	st, err := d.Run(context.Background(), func(ctx context.Context, tk Tick) error {
		if tk.Seq == 50 {
			time.Sleep(600 * time.Millisecond) // the stall
		} else {
			time.Sleep(time.Millisecond)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Scheduled != 200 || st.Started+st.Dropped != st.Scheduled {
		t.Fatalf("stats %+v: want 200 scheduled = started + dropped", st)
	}
	s := rec.Snapshot()
	corrected, service := s.Histogram(TxnTotalDuration), s.Histogram("service_time")
	t.Logf("from intended start: %+v", corrected.Percentiles())
	t.Logf("service time:        %+v", service.Percentiles())
	// ~60 ticks waited behind the stall, from 600 ms down to 0: more than 10% of 200.
	if corrected.Quantile(90) < 100*time.Millisecond {
		t.Errorf("corrected p90 %v: the stall's queued ticks must show", corrected.Quantile(90))
	}
	if service.Quantile(90) > corrected.Quantile(90)/5 {
		t.Errorf("service p90 %v vs corrected %v: only the one stalled call is slow", service.Quantile(90), corrected.Quantile(90))
	}
	if corrected.Max() < 550*time.Millisecond || service.Max() < 550*time.Millisecond {
		t.Errorf("both must hold the stall itself as max: %v %v", corrected.Max(), service.Max())
	}
	if n, ok := s.Counter(DroppedIterations); !ok || n != st.Dropped {
		t.Errorf("dropped_iterations %d %v, stats say %d", n, ok, st.Dropped)
	}
}

// With no backlog, ticks that find the worker busy are dropped and counted,
// and the schedule does not slow down.
func TestDriverCountsDroppedIterations(t *testing.T) {
	rec := NewRecorder(0)
	d := &Driver{Schedule: Schedule{Rate: 200, Count: 100}, Recorder: rec, MaxBacklog: NoBacklog}
	start := time.Now()
	st, err := d.Run(context.Background(), func(ctx context.Context, tk Tick) error {
		time.Sleep(30 * time.Millisecond) // 6 ticks' worth
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stats %+v in %v", st, time.Since(start))
	if st.Scheduled != 100 || st.Dropped < 50 || st.Started+st.Dropped != 100 {
		t.Fatalf("stats %+v: want most of 100 ticks dropped", st)
	}
	if n, _ := rec.Snapshot().Counter(DroppedIterations); n != st.Dropped {
		t.Fatalf("dropped_iterations %d, stats %d", n, st.Dropped)
	}
	if n, _ := rec.Snapshot().Counter(Iterations); n != st.Started {
		t.Fatalf("iterations %d, stats %d", n, st.Started)
	}
}

func TestDriverClosedLoopAndErrors(t *testing.T) {
	rec := NewRecorder(0)
	boom := errors.New("boom")
	d := &Driver{Schedule: Schedule{Count: 50}, Recorder: rec, Concurrency: 2}
	st, err := d.Run(context.Background(), func(ctx context.Context, tk Tick) error {
		if tk.Seq%10 == 0 {
			return boom
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Scheduled != 50 || st.Started != 50 || st.Dropped != 0 || st.Failed != 5 || !errors.Is(st.FirstError, boom) {
		t.Fatalf("stats %+v", st)
	}
	if n := rec.Snapshot().Histogram(IterationDuration).Count(); n != 50 {
		t.Fatalf("recorded %d iterations, want 50 (failed ones too)", n)
	}
	if n, _ := rec.Snapshot().Counter(FailedIterations); n != 5 {
		t.Fatalf("failed_iterations %d", n)
	}
}

func TestDriverClosedLoopStopsAtDuration(t *testing.T) {
	d := &Driver{Schedule: Schedule{Duration: 100 * time.Millisecond}, Recorder: NewRecorder(0)}
	st, err := d.Run(context.Background(), func(ctx context.Context, tk Tick) error {
		time.Sleep(time.Millisecond)
		return nil
	})
	if err != nil || st.Started == 0 {
		t.Fatalf("stats %+v err %v", st, err)
	}
}

// Cancelling the context stops the run: running iterations see it, queued
// ones never start, and Run reports the cancellation.
func TestDriverCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var running atomic.Int32
	d := &Driver{Schedule: Schedule{Rate: 1000, Duration: time.Hour}, Recorder: NewRecorder(0)}
	time.AfterFunc(100*time.Millisecond, cancel)
	st, err := d.Run(ctx, func(ctx context.Context, tk Tick) error {
		running.Add(1)
		defer running.Add(-1)
		<-ctx.Done() // an iteration that only ends when told to
		return ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if running.Load() != 0 {
		t.Fatal("iterations still running after Run returned")
	}
	if st.Started != 1 || st.Started+st.Dropped != st.Scheduled {
		t.Fatalf("stats %+v: one iteration ran, the rest could not start", st)
	}
}

// Once the schedule has ended, an iteration that never returns is cancelled
// after the grace period: the driver stops by itself.
func TestDriverGraceEndsAHungIteration(t *testing.T) {
	d := &Driver{Schedule: Schedule{Rate: 100, Count: 1}, Recorder: NewRecorder(0), Grace: 50 * time.Millisecond}
	st, err := d.Run(context.Background(), func(ctx context.Context, tk Tick) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if err != nil || st.Failed != 1 {
		t.Fatalf("stats %+v err %v", st, err)
	}
}

func TestDriverNeedsARecorder(t *testing.T) {
	d := &Driver{Schedule: Schedule{Count: 1}}
	if _, err := d.Run(context.Background(), func(context.Context, Tick) error { return nil }); err == nil {
		t.Fatal("want an error without a recorder")
	}
}
