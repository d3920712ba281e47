package bench

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// NoBacklog as Driver.MaxBacklog drops every tick that finds all workers busy
// (k6's constant-arrival-rate behaviour).
const NoBacklog = -1

// DefaultGrace is how long the Driver waits, once the schedule has ended, for
// queued and running iterations before it cancels them.
const DefaultGrace = 30 * time.Second

// Iteration is the work of one tick, for example one transaction of a CTP
// loop. It must return when ctx is cancelled. An error counts the iteration as
// failed; its latency is recorded all the same (a timeout is latency too).
type Iteration func(ctx context.Context, t Tick) error

// Driver runs an Iteration on a Schedule and records each iteration's latency
// from its intended start.
//
// Open loop (Schedule.Rate > 0): ticks arrive at the rate whatever happens to
// the iterations. A tick that finds every worker busy waits in a backlog of at
// most MaxBacklog ticks; a tick that finds the backlog full is dropped and
// counted in dropped_iterations (filed at its intended time) instead of slowing
// the schedule down. Ticks that wait are measured from their intended start, so
// a stall raises the latency of everything it delayed.
//
// Closed loop (Rate 0): each worker runs iterations back to back, as fast as
// possible; nothing is dropped and latency is the iteration's own time.
//
// Recorded: Metric (latency from intended start), ServiceMetric if set
// (latency from the actual start: what a naive harness would report),
// iterations and failed_iterations (at completion time, for throughput over
// time), dropped_iterations.
type Driver struct {
	Schedule Schedule
	// Recorder receives the metrics; required.
	Recorder *Recorder
	// Metric names the latency from intended start; IterationDuration if "".
	Metric string
	// ServiceMetric, if set, names the latency from the actual start.
	ServiceMetric string
	// Concurrency is how many iterations may run at once; 1 if 0. A CTP worker
	// runs one transaction at a time: keep 1 there.
	Concurrency int
	// MaxBacklog is how many ticks may wait for a free worker. 0: one second's
	// worth of ticks at Rate (at least 1). NoBacklog: none.
	MaxBacklog int
	// Grace is how long queued and running iterations may take once the
	// schedule has ended, before their context is cancelled; DefaultGrace if 0.
	Grace time.Duration
}

// DriverStats counts what a Run did. Scheduled = Started + Dropped.
type DriverStats struct {
	Scheduled int64
	Started   int64
	Failed    int64
	// Dropped: ticks that never started, because the backlog was full or
	// because the run ended (grace over, context cancelled) before their turn.
	Dropped int64
	Elapsed time.Duration
	// FirstError is the first iteration error, for the report.
	FirstError error
}

func (d *Driver) backlog() int {
	switch {
	case d.MaxBacklog < 0:
		return 0
	case d.MaxBacklog > 0:
		return d.MaxBacklog
	}
	return max(1, int(math.Ceil(d.Schedule.Rate)))
}

// Run drives fn until the schedule ends and every started iteration has
// returned (or Grace is over), or until ctx is cancelled; then it returns
// ctx.Err(). Iteration errors are counted, not returned.
func (d *Driver) Run(ctx context.Context, fn Iteration) (DriverStats, error) {
	if err := d.Schedule.Validate(); err != nil {
		return DriverStats{}, err
	}
	if d.Recorder == nil {
		return DriverStats{}, errors.New("run driver: no recorder")
	}
	r := &driverRun{
		d:      d,
		fn:     fn,
		metric: d.Metric,
		start:  time.Now(),
	}
	if r.metric == "" {
		r.metric = IterationDuration
	}
	// Declare the counters: a threshold on dropped_iterations must read 0 when
	// nothing was dropped, not "never recorded".
	for _, c := range []string{Iterations, FailedIterations, DroppedIterations} {
		d.Recorder.Add(c, r.start, 0)
	}
	var cancel context.CancelFunc
	r.runCtx, cancel = context.WithCancel(ctx)
	defer cancel()

	grace := d.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	if d.Schedule.Open() {
		r.open(ctx, cancel, grace)
	} else {
		r.closed(cancel, grace)
	}
	st := DriverStats{
		Scheduled: r.scheduled.Load(),
		Started:   r.started.Load(),
		Failed:    r.failed.Load(),
		Dropped:   r.dropped.Load(),
		Elapsed:   time.Since(r.start),
	}
	if e := r.firstErr.Load(); e != nil {
		st.FirstError = *e
	}
	return st, ctx.Err()
}

// driverRun is the state of one Run.
type driverRun struct {
	d      *Driver
	fn     Iteration
	metric string
	start  time.Time
	runCtx context.Context

	scheduled, started, failed, dropped atomic.Int64
	firstErr                            atomic.Pointer[error]
}

func (r *driverRun) workers() int { return max(1, r.d.Concurrency) }

// open runs the open loop: one goroutine keeps the schedule, workers take
// ticks from a bounded queue.
func (r *driverRun) open(ctx context.Context, cancel context.CancelFunc, grace time.Duration) {
	queue := make(chan Tick, r.d.backlog())
	var wg sync.WaitGroup
	for range r.workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range queue {
				if r.runCtx.Err() != nil {
					r.drop(t)
					continue
				}
				r.iterate(t)
			}
		}()
	}

	timer := time.NewTimer(time.Hour)
	timer.Stop()
schedule:
	for t := range r.d.Schedule.Ticks(r.start) {
		if wait := time.Until(t.Intended); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				break schedule
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			break
		}
		r.scheduled.Add(1)
		// A send on a full (or, with no backlog, unbuffered and unattended)
		// queue would make the schedule wait for the iterations: exactly the
		// coordinated omission this driver exists to avoid. Drop instead.
		select {
		case queue <- t:
		default:
			r.drop(t)
		}
	}
	close(queue)
	r.await(&wg, cancel, grace)
}

// closed runs the closed loop: each worker iterates back to back until the
// count or the duration is used up.
func (r *driverRun) closed(cancel context.CancelFunc, grace time.Duration) {
	s := r.d.Schedule
	if s.Duration > 0 {
		// Past the duration plus grace, cancel what still runs.
		stop := time.AfterFunc(s.Duration+grace, cancel)
		defer stop.Stop()
	}
	end := r.start.Add(s.Duration)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range r.workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r.runCtx.Err() == nil {
				now := time.Now()
				if s.Duration > 0 && !now.Before(end) {
					return
				}
				seq := next.Add(1) - 1
				if s.Count > 0 && seq >= s.Count {
					return
				}
				r.scheduled.Add(1)
				r.iterate(Tick{Seq: seq, Intended: now})
			}
		}()
	}
	wg.Wait()
}

// await waits for the workers after the schedule ended, cancelling them when
// grace runs out.
func (r *driverRun) await(wg *sync.WaitGroup, cancel context.CancelFunc, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		cancel()
		<-done
	}
}

func (r *driverRun) iterate(t Tick) {
	r.started.Add(1)
	actual := time.Now()
	err := r.fn(r.runCtx, t)
	end := time.Now()
	rec := r.d.Recorder
	rec.Record(r.metric, t.Intended, end.Sub(t.Intended))
	if r.d.ServiceMetric != "" {
		rec.Record(r.d.ServiceMetric, t.Intended, end.Sub(actual))
	}
	rec.Add(Iterations, end, 1)
	if err != nil {
		r.failed.Add(1)
		rec.Add(FailedIterations, end, 1)
		r.firstErr.CompareAndSwap(nil, &err)
	}
}

func (r *driverRun) drop(t Tick) {
	r.dropped.Add(1)
	r.d.Recorder.Add(DroppedIterations, t.Intended, 1)
}
