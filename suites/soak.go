package suites

import (
	"context"
	"fmt"
	"maps"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	flag "github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Soak is a chaos cell's long form (--duration): instead of seeding every
// record before the workers start, a seeder writes --rate records per
// second for the whole duration while the workers run, and a cluster fault
// is injected again after each heal, --fault-pause later, until the
// duration ends; then the usual drain and check. The checker stays exact:
// every seeded record is an input, read back from the input topic as in
// any cell.
type Soak struct {
	// Duration is how long the seeder writes; zero seeds every record up
	// front (no soak).
	Duration time.Duration
	// Rate is the records per second the seeder writes.
	Rate float64
	// FaultPause separates a cluster fault's heal from its next injection.
	FaultPause time.Duration
}

// Soak defaults.
const (
	// DefaultSoakRate is well inside what three workers commit on these
	// 2-core machines in every mode (hundreds of records per second), so
	// a soak measures the loop under faults, not a backlog.
	DefaultSoakRate   = 100
	DefaultFaultPause = 10 * time.Second
	// maxSoakRecords is what the in-memory checker should hold for one
	// cell: it keeps about 1.4 KB per record (2 million: some 2.8 GB).
	maxSoakRecords = 2_000_000
	// seedTick is how often the seeder writes what is due.
	seedTick = 100 * time.Millisecond
	// maxSeedBatch bounds one produce call (a backlog after a stall is
	// written in parts), and so the seeder's memory.
	maxSeedBatch = 5000
	// seedEventEvery is how often the seeder puts a seed event on the
	// timeline (what it wrote since the last one).
	seedEventEvery = time.Second
)

func (s *Soak) register(fs *flag.FlagSet) {
	fs.DurationVar(&s.Duration, "duration", 0, "soak: seed at --rate for this long while the workers run, cluster faults repeating, then drain and check (default: seed --records up front)")
	fs.Float64Var(&s.Rate, "rate", DefaultSoakRate, "soak: input records per second the seeder writes for --duration (records = rate x duration, in place of --records)")
	fs.DurationVar(&s.FaultPause, "fault-pause", DefaultFaultPause, "soak: the pause between a cluster fault's heal and its next injection")
}

func (s Soak) withDefaults() Soak {
	if s.Rate == 0 {
		s.Rate = DefaultSoakRate
	}
	if s.FaultPause == 0 {
		s.FaultPause = DefaultFaultPause
	}
	return s
}

// describe adds the soak's settings to the report's config.
func (s Soak) describe(config map[string]string) {
	if s.Duration == 0 {
		return
	}
	config["soak_duration"] = s.Duration.String()
	config["soak_rate"] = strconv.FormatFloat(s.Rate, 'g', -1, 64) + " records/s"
	config["soak_fault_pause"] = s.FaultPause.String()
}

// records is how many input records a soak cell seeds.
func (s Soak) records() int { return max(1, int(s.Rate*s.Duration.Seconds())) }

func (s Soak) validate() error {
	switch {
	case s.Duration < 0:
		return harness.Usagef("--duration %s: want a positive duration", s.Duration)
	case s.Rate <= 0:
		return harness.Usagef("--rate %g: want records per second, a positive number", s.Rate)
	case s.FaultPause < 0:
		return harness.Usagef("--fault-pause %s: want a positive duration", s.FaultPause)
	case s.Duration > 0 && s.records() > maxSoakRecords:
		return harness.Usagef("--rate %g x --duration %s = %d records per cell: more than the in-memory checker should hold (%d, about 1.4 KB each); "+
			"lower --rate or --duration, or check runs that size with the large checker (workloads/ctp/check/large, `make bench-checker`)",
			s.Rate, s.Duration, s.records(), maxSoakRecords)
	}
	return nil
}

// seeder writes a soak cell's input at its rate.
type seeder struct {
	rate    float64
	total   int
	started time.Time
	// end is when the last record is due.
	end    time.Time
	done   chan struct{}
	err    error // set before done closes
	cancel context.CancelFunc
	seeded atomic.Int64
	// lastAt is when the last write was acknowledged (unix nanoseconds).
	lastAt atomic.Int64
	// rss is the processes' memory when the soak's load began and ended.
	rssStart, rssEnd memory
}

// startSeeder starts writing the cell's input at the soak's rate beside the
// load. The seeder gives up when the cell ends, or when it cannot finish
// within the duration plus the drain timeout (a cluster that stopped
// taking writes).
func (r *cellRun) startSeeder(ctx context.Context) error {
	cl, err := ctp.SeederClient(r.c.Bootstrap(), r.topo.InputTopic, cluster.ClientOpts(r.c)...)
	if err != nil {
		return fmt.Errorf("seed cell: %w", err)
	}
	now := time.Now()
	s := &seeder{rate: r.o.Rate, total: r.o.Records, started: now, end: now.Add(r.o.Duration), done: make(chan struct{})}
	r.seeder = s
	sctx, cancel := context.WithDeadline(ctx, s.end.Add(r.o.DrainTimeout))
	s.cancel = cancel
	go func() {
		defer cancel()
		defer cl.Close()
		defer close(s.done)
		s.err = s.run(sctx, cl, r.timeline)
	}()
	return nil
}

// stop ends the seeder if it still writes (a cell that failed before its
// drain) and waits for it, so nothing writes into the cell's topics once
// it ended.
func (s *seeder) stop() {
	s.cancel()
	<-s.done
}

// run writes what is due every seedTick until every record is written.
func (s *seeder) run(ctx context.Context, cl *kgo.Client, tl *history.Recorder) error {
	tick := time.NewTicker(seedTick)
	defer tick.Stop()
	n, since, lastEvent := 0, 0, time.Now()
	for n < s.total {
		select {
		case <-ctx.Done():
			return fmt.Errorf("seed cell: %d of %d records written: %w", n, s.total, ctx.Err())
		case <-tick.C:
		}
		due := min(s.total, int(s.rate*time.Since(s.started).Seconds()))
		for n < due {
			rs := make([]*kgo.Record, min(due-n, maxSeedBatch))
			for i := range rs {
				rs[i] = ctp.InputRecord(n + i)
			}
			if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
				return fmt.Errorf("seed cell: %d of %d records written: %w", n, s.total, err)
			}
			n += len(rs)
			since += len(rs)
			s.seeded.Store(int64(n))
			s.lastAt.Store(time.Now().UnixNano())
		}
		if since > 0 && (time.Since(lastEvent) >= seedEventEvery || n == s.total) {
			_ = tl.Record(history.Event{Type: history.OK, F: history.FSeed, Attrs: map[string]string{
				"records": strconv.Itoa(since), "seeded": strconv.Itoa(n), "of": strconv.Itoa(s.total)}})
			since, lastEvent = 0, time.Now()
		}
	}
	return nil
}

// awaitSeeder waits, under load, until a soak cell's seeder wrote every
// record (the drain starts then), showing the soak's progress and
// measuring the processes' memory once the load has warmed up (a tenth of
// the duration in: the workers' clients are set up, the first transactions
// done) and at the end, so what grows with time shows as the difference. A
// cell without a seeder returns at once.
func (r *cellRun) awaitSeeder(ctx context.Context, admin *kgo.Client, ws *workerSet) error {
	s := r.seeder
	if s == nil {
		return nil
	}
	warm := s.started.Add(s.end.Sub(s.started) / 10)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
			if s.rssStart.at.IsZero() {
				s.rssStart = measureMemory(r.c, ws)
			}
			s.rssEnd = measureMemory(r.c, ws)
			r.prog.note(r.plan, r.plan.label()+": "+s.memoryNote())
			return s.err
		case <-tick.C:
		}
		if s.rssStart.at.IsZero() && time.Now().After(warm) {
			s.rssStart = measureMemory(r.c, ws)
		}
		if err := ws.failure(); err != nil {
			return err
		}
		done, total := r.progress(ctx, admin)
		r.prog.soak(r.plan, s, done, total)
	}
}

// soakNotes are what a soak cell adds to its notes: what was seeded over
// what time, what the faults did, and the memory at start and end.
func (r *cellRun) soakNotes() []string {
	s := r.seeder
	if s == nil {
		return nil
	}
	n := s.seeded.Load()
	notes := []string{fmt.Sprintf("soak: %d of %d records seeded at %g/s over %s (the last acknowledged %.1fs after the first was due)",
		n, s.total, s.rate, r.o.Duration, time.Duration(s.lastAt.Load()-s.started.UnixNano()).Seconds())}
	switch {
	case r.plan.scenario.Cluster != nil && r.report != nil:
		notes = append(notes, fmt.Sprintf("soak: the cluster fault was injected again after each heal, %s later, until the duration ended: %d firings, %d heals",
			r.o.FaultPause, len(r.report.Fired), len(r.report.Healed)))
	case r.plan.scenario.Worker != nil:
		notes = append(notes, "soak: the armed worker fault fires once (its first incarnation, at its batch); the rest of the soak runs on its replacement")
	}
	if !s.rssEnd.at.IsZero() {
		notes = append(notes, "soak: "+s.memoryNote())
	}
	return notes
}

// memory is the resident memory of the cell's processes at one moment.
type memory struct {
	at           time.Time
	orchestrator int64 // bytes; the orchestrator is the whole run's process
	heap         int64 // the orchestrator's live Go heap after a collection (HeapAlloc)
	workers      []int64
	broker       int64 // the embedded broker's child; 0 when not ours to read
}

// measureMemory reads the resident set sizes from /proc (Linux); what
// cannot be read stays 0.
func measureMemory(c cluster.Cluster, ws *workerSet) memory {
	m := memory{at: time.Now(), orchestrator: rssOf(os.Getpid())}
	// After a collection, the heap allocated is what is live, not garbage
	// yet (HeapInuse would count the spans fragmentation keeps).
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.heap = int64(ms.HeapAlloc)
	for _, pid := range ws.runningPIDs() {
		m.workers = append(m.workers, rssOf(pid))
	}
	if b, ok := c.(interface{ BrokerPID() int }); ok {
		m.broker = rssOf(b.BrokerPID())
	}
	return m
}

// memoryNote says the memory at the soak's start and end.
func (s *seeder) memoryNote() string {
	a, b := s.rssStart, s.rssEnd
	line := fmt.Sprintf("resident memory a tenth into the soak -> at its end (%.0fs apart): orchestrator (the whole run's process, every cell running at once) %s -> %s (live Go heap after a collection %s -> %s), workers %s -> %s",
		b.at.Sub(a.at).Seconds(), mib(a.orchestrator), mib(b.orchestrator), mib(a.heap), mib(b.heap), mibs(a.workers), mibs(b.workers))
	if a.broker > 0 || b.broker > 0 {
		line += fmt.Sprintf(", embedded broker %s -> %s (kfake keeps every record in memory)", mib(a.broker), mib(b.broker))
	}
	return line
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func mibs(bs []int64) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("%.1f", float64(b)/(1<<20))
	}
	return "[" + strings.Join(parts, " ") + "] MiB"
}

// rssOf is a process's resident set size in bytes (VmRSS), 0 if unknown.
func rssOf(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// runningPIDs are the process ids of the workers running now, by slot.
func (ws *workerSet) runningPIDs() []int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var pids []int
	for slot := 1; slot <= ws.slots; slot++ {
		if cmd, ok := ws.running[slot*1000+ws.current[slot]]; ok && cmd.Process != nil {
			pids = append(pids, cmd.Process.Pid)
		}
	}
	return pids
}

// injections runs a cell's own cluster fault: once, or, in a soak, again
// after each heal until the soak's duration ended.
func (r *cellRun) injections(ctx context.Context, m faults.Mechanism, env faults.Env) (faults.Report, error) {
	var until time.Time
	if r.seeder != nil {
		until = r.seeder.end
	}
	return repeatInjection(ctx, m, env, r.o.FaultPause, until)
}

// injections runs a shared fault for its row like a cell's own: in a soak,
// until the last of the row's seeders is done.
func (f *faultShare) injections(ctx context.Context, m faults.Mechanism, env faults.Env) (faults.Report, error) {
	f.mu.Lock()
	var until time.Time
	pause := time.Duration(0)
	for _, c := range f.members {
		if c.seeder != nil && c.seeder.end.After(until) {
			until, pause = c.seeder.end, c.o.FaultPause
		}
	}
	f.mu.Unlock()
	return repeatInjection(ctx, m, env, pause, until)
}

// repeatInjection injects m, and while until (zero: never) has not come,
// pauses and injects it again; every injection heals before the next
// starts, and none starts after until. The report is every injection's,
// in order; each firing's event names its injection.
func repeatInjection(ctx context.Context, m faults.Mechanism, env faults.Env, pause time.Duration, until time.Time) (faults.Report, error) {
	if until.IsZero() {
		return faults.Inject(ctx, m, env)
	}
	all := faults.Report{Name: env.Name}
	fired := env.Fired
	for k := 1; ; k++ {
		e := env
		e.Fired = func(ev history.Event) {
			ev.Attrs = maps.Clone(ev.Attrs)
			if ev.Attrs == nil {
				ev.Attrs = map[string]string{}
			}
			ev.Attrs["injection"] = strconv.Itoa(k)
			if fired != nil {
				fired(ev)
			}
		}
		rep, err := faults.Inject(ctx, m, e)
		all.Fired = append(all.Fired, rep.Fired...)
		all.Healed = append(all.Healed, rep.Healed...)
		if err != nil || ctx.Err() != nil || !time.Now().Add(pause).Before(until) {
			return all, err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return all, nil
		case <-t.C:
		}
	}
}

// soak shows a soak cell's progress: seeded so far, done of what is in.
func (pr *progress) soak(p cellPlan, s *seeder, done, total int64) {
	pr.records(p, done, total, func() string {
		return fmt.Sprintf("soak %s of %s, %d of %d records seeded, %d of %d done",
			time.Since(s.started).Round(time.Second), s.end.Sub(s.started), s.seeded.Load(), s.total, done, total)
	})
}

// note prints a line about a cell (above the bars on a terminal).
func (pr *progress) note(_ cellPlan, line string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.live != nil {
		fmt.Fprintln(pr.live.p, line)
		return
	}
	fmt.Fprintf(pr.w, "%s  %s\n", time.Now().Format("15:04:05"), line)
}
