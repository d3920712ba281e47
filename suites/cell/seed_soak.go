package cell

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

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

// soakSeeding is a soak's seeding strategy (seeding.go): its seeder writes
// the input at the soak's rate beside the load.
type soakSeeding struct {
	*seeder
}

// start starts writing the cell's input at the soak's rate beside the
// load. The seeder gives up when the cell ends, or when it cannot finish
// within the duration plus the drain timeout (a cluster that stopped
// taking writes).
func (ss *soakSeeding) start(ctx context.Context, r *run) error {
	cl, err := ctp.SeederClient(r.env.Cluster.Bootstrap(), r.topo.InputTopic, cluster.ClientOpts(r.env.Cluster)...)
	if err != nil {
		return fmt.Errorf("seed cell: %w", err)
	}
	now := time.Now()
	s := &seeder{rate: r.s.Soak.Rate, total: r.s.Records, started: now, end: now.Add(r.s.Soak.Duration), done: make(chan struct{})}
	ss.seeder = s
	sctx, cancel := context.WithDeadline(ctx, s.end.Add(r.s.DrainTimeout))
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
func (ss *soakSeeding) stop() {
	if ss.seeder == nil {
		return // never started
	}
	ss.cancel()
	<-ss.done
}

// pending: the seeder's records are counted as they are written.
func (ss *soakSeeding) pending() int64 { return 0 }

// takeHold: a soak holds nothing back; its cluster fault repeats.
func (ss *soakSeeding) takeHold() {}

// failure is the seeder's error once it ended.
func (ss *soakSeeding) failure() error {
	if ss.seeder == nil {
		return nil
	}
	select {
	case <-ss.done:
		return ss.err
	default:
		return nil
	}
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
func (ss *soakSeeding) awaitEnd(ctx context.Context, r *run, admin *kgo.Client, ws *workerset.Set) error {
	s := ss.seeder
	warm := s.started.Add(s.end.Sub(s.started) / 10)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
			if s.rssStart.at.IsZero() {
				s.rssStart = measureMemory(r.env.Cluster, ws)
			}
			s.rssEnd = measureMemory(r.env.Cluster, ws)
			r.env.Display.Note(r.plan, r.plan.Label()+": "+s.memoryNote())
			return s.err
		case <-tick.C:
		}
		if s.rssStart.at.IsZero() && time.Now().After(warm) {
			s.rssStart = measureMemory(r.env.Cluster, ws)
		}
		if err := ws.Failure(); err != nil {
			return err
		}
		done, total := r.shareProgress(ctx, admin)
		r.env.Display.Progress(r.plan, done, total, func() string {
			return fmt.Sprintf("soak %s of %s, %d of %d records seeded, %d of %d done",
				time.Since(s.started).Round(time.Second), s.end.Sub(s.started), s.seeded.Load(), s.total, done, total)
		})
	}
}

// notes are what a soak cell adds to its notes: what was seeded over what
// time, what the faults did, and the memory at start and end.
func (ss *soakSeeding) notes(r *run) []string {
	s := ss.seeder
	if s == nil {
		return nil
	}
	n := s.seeded.Load()
	notes := []string{fmt.Sprintf("soak: %d of %d records seeded at %g/s over %s (the last acknowledged %.1fs after the first was due)",
		n, s.total, s.rate, r.s.Soak.Duration, time.Duration(s.lastAt.Load()-s.started.UnixNano()).Seconds())}
	switch rep := r.inject.report(); {
	case r.plan.Scenario.Cluster != nil && rep != nil:
		notes = append(notes, fmt.Sprintf("soak: the cluster fault was injected again after each heal, %s later, until the duration ended: %d firings, %d heals",
			r.s.Soak.FaultPause, len(rep.Fired), len(rep.Healed)))
	case r.plan.Scenario.Worker != nil:
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
func measureMemory(c cluster.Cluster, ws *workerset.Set) memory {
	m := memory{at: time.Now(), orchestrator: rssOf(os.Getpid())}
	// After a collection, the heap allocated is what is live, not garbage
	// yet (HeapInuse would count the spans fragmentation keeps).
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.heap = int64(ms.HeapAlloc)
	for _, pid := range ws.RunningPIDs() {
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
