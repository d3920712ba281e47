package suites

import (
	"context"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/result"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// cellPlan is one cell to run.
type cellPlan struct {
	index       int
	scenario    scenarios.Scenario
	mode        ctp.AckMode
	realization string
	repeat      int
	seed        int64
	// fallbackNote is set when transactional fell back to explicit.
	fallbackNote string
	// consumer is the workers' share consumer (ctp.ConsumerKgo, ...).
	consumer string
	// share is the injection this cell shares with the other cells of its
	// row (fault_share.go); nil when the cell injects its own fault.
	share *faultShare
}

func (p cellPlan) name() string { return p.scenario.Name }

// cellRun is the state of one running cell.
type cellRun struct {
	o        *Options
	prog     *progress
	c        cluster.Cluster
	plan     cellPlan
	dir      string
	runID    string
	topo     ctp.Topology
	rng      *rand.Rand
	started  time.Time
	timeline *history.Recorder
	// report is what the cluster fault did, once it returned.
	report *faults.Report
	// cleanupErr is a heal that failed after the cell (cleanup.go).
	cleanupErr error
	phases     phaseTimer
	// seeder writes a soak's input beside the load (soak.go); nil when
	// every record was seeded up front.
	seeder *seeder
	// held is the input written once the cluster fault took hold
	// (held_input.go); nil when every record was seeded up front.
	held *heldInput
	// lastDone and lastTotal are the share group's progress when last read.
	lastDone, lastTotal atomic.Int64
	// lastFault is when a cluster fault last fired or healed (unix nanos).
	lastFault atomic.Int64
	// nudged names the partitions the drain nudged (drain_stall.go).
	nudged []string
}

// faultEvent puts a cluster fault's event on the cell's timeline and
// progress line.
func (r *cellRun) faultEvent(e history.Event) {
	r.lastFault.Store(time.Now().UnixNano())
	_ = r.timeline.Record(e)
	r.prog.faultEvent(r.plan, e)
}

// lastProgress is the progress the drain last read.
func (r *cellRun) lastProgress() (done, total int64) { return r.lastDone.Load(), r.lastTotal.Load() }

// runCell runs one cell to its verdict. It never returns an error: whatever
// goes wrong becomes the cell's verdict (HARNESS-ERROR, UNKNOWN) with a reason.
func runCell(ctx context.Context, o *Options, prog *progress, c cluster.Cluster, runID, runDir string, plan cellPlan) (cell result.Cell) {
	o, loadNote := withLoad(o, plan.scenario)
	r := &cellRun{o: o, prog: prog, c: c, plan: plan, runID: runID, started: time.Now(),
		rng: rand.New(rand.NewPCG(uint64(plan.seed), uint64(plan.index)))}
	defer plan.share.exit(ctx, r)
	cell = result.Cell{
		Scenario: plan.name(), Mode: string(plan.mode), Backend: c.Name(), Realization: plan.realization,
		Repeat: plan.repeat, Seed: plan.seed,
		Anomalies: map[string]verdict.Found{},
	}
	if plan.scenario.HasFault() {
		cell.Fault.Name = plan.name()
	}
	if plan.fallbackNote != "" {
		cell.Notes = append(cell.Notes, plan.fallbackNote)
	}
	if loadNote != "" {
		cell.Notes = append(cell.Notes, loadNote)
	}
	cell.Notes = append(cell.Notes, "consumer: "+plan.consumer, clientNote(o.Client))
	r.dir = filepath.Join(runDir, "cells", strings.ReplaceAll(cell.Name(), "/", "_")+fmt.Sprintf("_r%d", plan.repeat))
	cell.Dir, _ = filepath.Rel(runDir, r.dir)
	defer func() { cell.DurationS = time.Since(r.started).Seconds() }()

	allowed := plan.scenario.Allowed(plan.mode)
	cell.Allowed = allowed.Names()
	if why := plan.scenario.NAReason(plan.mode, plan.realization, c); why != "" {
		cell.Verdict, cell.Reason = verdict.NA, why
		return cell
	}
	if err := os.MkdirAll(filepath.Join(r.dir, "histories"), 0o755); err != nil {
		cell.Verdict, cell.Reason = verdict.HarnessError, err.Error()
		return cell
	}
	prog.setPhase(plan, PhaseSetup)
	var err error
	r.timeline, err = history.Create(filepath.Join(r.dir, "histories", history.Orchestrator+".jsonl"), history.Orchestrator)
	if err != nil {
		cell.Verdict, cell.Reason = verdict.HarnessError, err.Error()
		return cell
	}
	defer r.timeline.Close()

	obs, notes, err := r.execute(ctx, allowed)
	defer r.failOnCleanup(&cell)
	prog.setPhase(plan, PhaseCheck)
	cell.Notes = append(cell.Notes, notes...)
	cell.Notes = append(cell.Notes, r.soakNotes()...)
	switch {
	case err != nil && ctx.Err() != nil:
		cell.Verdict, cell.Reason = verdict.Unknown, "interrupted before the cell finished; what was recorded is in "+cell.Dir
	case err != nil:
		cell.Verdict, cell.Reason = verdict.HarnessError, err.Error()
	}
	if obs == nil {
		r.summarizeLatency(&cell, nil)
		return cell
	}
	if err := saveObservation(r.dir, obs); err != nil {
		cell.Notes = append(cell.Notes, err.Error())
	}
	r.phases.begin(result.PhaseCheck)
	judgeCell(&cell, *obs, r.plan.scenario)
	r.timePhases(&cell, obs.History)
	if r.report != nil {
		for _, h := range r.report.Healed {
			cell.Fault.Healed = append(cell.Fault.Healed, h.UTC())
		}
	}
	r.summarizeLatency(&cell, obs.History)
	if r.seeder != nil {
		cell.SoakTimeline = soakTimeline(cell, obs.History)
	}
	return cell
}

// execute sets the cell up, runs load and fault, drains, stops the workers and
// observes. It returns the observation when the cell got far enough to judge.
func (r *cellRun) execute(ctx context.Context, allowed check.Allowed) (*ctp.Observation, []string, error) {
	o := r.o
	rf, minISR := int16(3), 2
	if n := len(r.c.Nodes()); n < 3 {
		rf, minISR = int16(n), 1
	}
	prefix := fmt.Sprintf("sc-%s-c%02d", r.runID, r.plan.index)
	r.topo = ctp.NewTopology(prefix, o.Partitions, rf, minISR)
	admin, err := cluster.NewClient(r.c, kgo.ClientID("sharechaos-orchestrator"))
	if err != nil {
		return nil, nil, fmt.Errorf("create admin client: %w", err)
	}
	defer admin.Close()
	// Deferred after admin.Close, so it runs before it: heal what the
	// fault left, then delete the cell's topics and group.
	defer r.cleanUp(ctx)

	r.phases.begin(result.PhaseTopicSetup)
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	err = ctp.CreateTopics(sctx, admin, r.topo)
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("set up cell: %w", err)
	}
	r.phases.begin(result.PhaseSeeding)
	sctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	r.prog.setPhase(r.plan, PhaseSeeding)
	if o.Duration > 0 {
		// A soak seeds at its rate beside the load (soak.go).
		cancel()
		if err := r.startSeeder(ctx); err != nil {
			return nil, nil, err
		}
		defer r.seeder.stop()
	} else {
		if cf := r.plan.scenario.Cluster; cf != nil {
			r.held = holdInput(ctx, r, o.Records, cf.AfterLoad, cf.Mechanism.TakesHold)
			// Before the cleanup (deferred earlier, so run later): a
			// release under way ends before the topics go.
			defer r.held.wait()
		}
		head := r.held.head(o.Records)
		err = ctp.Seed(sctx, r.c.Bootstrap(), r.topo.InputTopic, head, cluster.ClientOpts(r.c)...)
		cancel()
		if err != nil {
			return nil, nil, fmt.Errorf("seed cell: %w", err)
		}
		attrs := map[string]string{"records": fmt.Sprint(head), "topic": r.topo.InputTopic}
		if n := r.held.count(); n > 0 {
			attrs["held_until_the_fault"] = fmt.Sprint(n)
		}
		r.timeline.Record(history.Event{Type: history.OK, F: history.FSeed, Attrs: attrs})
	}
	if r.plan.share != nil {
		// The shared fault's Align may rename the group before anyone joins it.
		r.phases.begin(result.PhaseAlign)
		if err := r.plan.share.join(ctx, r); err != nil {
			return nil, nil, err
		}
	}
	sctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	err = ctp.SetGroupConfigs(sctx, admin, r.topo.Group, ctp.GroupConfig{Lock: o.Lock, DeliveryLimit: harness.DeliveryLimit})
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("set up cell: %w", err)
	}

	r.phases.begin(result.PhaseWorkersStart)
	ws := r.workerSet()
	if err := ws.start(); err != nil {
		return nil, nil, err
	}
	r.prog.setPhase(r.plan, PhaseLoad)
	r.phases.begin(result.PhaseLoad)
	stopped := false
	stopWorkers := func() {
		if !stopped {
			stopped = true
			ws.stop(20 * time.Second)
		}
	}
	defer stopWorkers()

	// The cluster fault runs beside the load; it heals before it returns.
	var faultWG sync.WaitGroup
	var faultErr error
	faultCtx, cancelFault := context.WithCancel(ctx)
	defer cancelFault()
	if r.plan.share != nil {
		r.plan.share.running(ctx, r)
	} else if cf := r.plan.scenario.Cluster; cf != nil {
		faultWG.Add(1)
		go func() {
			defer faultWG.Done()
			// A fault that ends without taking hold lets the input come all the same.
			defer r.held.release()
			env := faults.Env{Name: r.plan.name(), Cluster: r.c, Topology: r.topo, Rand: r.rng, Workers: o.Workers,
				Fired: r.faultEvent, TookHold: r.held.release,
				// Its own reads, more often than the drain's (added when a
				// fast cell passed a trigger's fraction between two drain
				// reads; the held input now stops the load at the head, so
				// the drain's reads would do: noted for the next round).
				Progress: func(ctx context.Context) (int64, int64) { return r.progress(ctx, admin) }}
			rep, err := r.injections(faultCtx, cf.Triggered(), env)
			r.report = &rep
			if err != nil && faultCtx.Err() == nil {
				faultErr = err
			}
		}()
	}

	// The orchestrator's half of a worker fault (the zombie's choreography).
	if wf := r.plan.scenario.Worker; wf != nil && wf.Conduct != nil {
		faultWG.Add(1)
		go func() {
			defer faultWG.Done()
			if err := wf.Conduct(faultCtx, armedWorkers{ws: ws, timeline: r.timeline}, o.Lock); err != nil && faultCtx.Err() == nil {
				faultErr = err
			}
		}()
	}

	drained, err := r.drain(ctx, admin, ws)
	drainEnded := time.Now()
	cancelFault()
	faultWG.Wait()
	if r.plan.share != nil {
		// A cell that drained while the shared fault still acts waits for
		// its heal: the heal is part of what every cell of the row meets.
		r.phases.begin(result.PhaseHeal)
		rep, shareErr := r.plan.share.drainedAndWait(ctx, r)
		r.report = &rep
		if shareErr != nil && faultErr == nil {
			faultErr = shareErr
		}
	}
	if err == nil && faultErr == nil && drained && r.lastFault.Load() > drainEnded.UnixNano() {
		// The fault acted or healed after the drain ended (a heal, a
		// shared fault's later turns): drain again, so the check meets the
		// group quiescent after the heal. A broker restarted after the
		// drain had moved a partition's share start back from 250 to 60
		// (random-schedule/implicit, docker): unseen, UNKNOWN.
		r.phases.begin(result.PhaseDrain)
		r.prog.setPhase(r.plan, PhaseDrain)
		drained, err = r.drain(ctx, admin, ws)
	}
	if err != nil {
		return nil, nil, err
	}
	if faultErr != nil {
		return nil, nil, fmt.Errorf("inject %s: %w", r.plan.name(), faultErr)
	}
	// A last moment for acks in flight, then stop the workers gracefully.
	r.phases.begin(result.PhaseTeardown)
	time.Sleep(time.Second)
	stopWorkers()
	if err := ws.failure(); err != nil {
		return nil, nil, err
	}

	r.phases.begin(result.PhaseReadBack)
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancel()
	obs, err := r.observe(octx, admin)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if n := r.nudgeNote(); n != "" {
		notes = append(notes, n)
	}
	if !drained {
		notes = append(notes, fmt.Sprintf("%s %s", drainTimedOutNote, o.DrainTimeout))
	}
	return obs, notes, nil
}

// drainTimedOutNote begins the note of a cell whose drain timed out.
const drainTimedOutNote = "the drain timed out after"

func (r *cellRun) workerSet() *workerSet {
	o := r.o
	wf := r.plan.scenario.Worker
	ws := &workerSet{
		base: ctp.WorkerConfig{
			Bootstrap: r.c.Bootstrap(), Group: r.topo.Group, InputTopic: r.topo.InputTopic,
			OutputTopic: r.topo.OutputTopic, LedgerTopic: r.topo.LedgerTopic,
			Mode: r.plan.mode, Realization: r.plan.realization, MaxRecords: o.MaxRecords,
			TxnTimeout: ctp.Duration(o.TxnTimeout), Client: cluster.ClientConfigOf(r.c), Consumer: r.plan.consumer,
			AddShareAcksToTxnKey: o.KIP1289Keys.AddShareAcksToTxn, TxnShareAcknowledgeKey: o.KIP1289Keys.TxnShareAcknowledge,
			MemberTags: o.MemberTags,
		},
		dir: r.dir, slots: o.Workers, topology: r.topo, client: o.Client,
	}
	if wf == nil {
		return ws
	}
	ws.base.DeliveryTimeout = ctp.Duration(wf.DeliveryTimeout)
	ws.freshID = wf.FreshID
	ws.armSlot = 1 + r.rng.IntN(o.Workers)
	ws.arm = ctp.Arm{Fault: r.plan.name(), Point: wf.Point, Action: wf.Action, Batch: r.armBatch()}
	if wf.Stall != nil {
		ws.arm.Stall = ctp.Duration(wf.Stall(o.Lock))
	}
	if wf.TxnTimeout != nil {
		ws.base.TxnTimeout = ctp.Duration(wf.TxnTimeout(o.Lock))
	}
	_ = r.timeline.Record(history.Event{Type: history.Info, F: history.FArm, Fault: r.plan.name(), Point: string(ws.arm.Point),
		Attrs: map[string]string{"slot": fmt.Sprint(ws.armSlot), "batch": fmt.Sprint(ws.arm.Batch), "action": string(ws.arm.Action)}})
	return ws
}

// armBatch draws k, the non-empty batch at which the armed worker fires,
// bounded so that it certainly comes: a worker gets about
// records/(workers*maxRecords) batches; k stays within a quarter of that.
func (r *cellRun) armBatch() int {
	per := r.o.Records / (r.o.Workers * int(r.o.MaxRecords))
	bound := per / 4
	if bound > 10 {
		bound = 10
	}
	if bound < 1 {
		bound = 1
	}
	return 1 + r.rng.IntN(bound)
}

// progress is how many input records the share group is done with.
func (r *cellRun) progress(ctx context.Context, admin *kgo.Client) (done, total int64) {
	done, total, _, _, _ = r.shareState(ctx, admin)
	return done, total
}

// shareState is progress with each partition's share start and end
// offsets; ok is false when they could not be read.
func (r *cellRun) shareState(ctx context.Context, admin *kgo.Client) (done, total int64, start, end map[int32]int64, ok bool) {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start, end, err := ctp.ShareProgress(pctx, admin, r.topo.Group, r.topo.InputTopic)
	if err != nil {
		return 0, int64(r.o.Records), nil, nil, false
	}
	for p, e := range end {
		total += e
		done += min(start[p], e)
	}
	total += r.held.count()
	r.lastDone.Store(done)
	r.lastTotal.Store(total)
	return done, total, start, end, true
}

// drainTick is how often the drain reads the share group's progress. A
// shared fault's trigger sees only these reads (faultShare.slowest): at one
// a second, embedded cells of 400 records drained before their fault's
// trigger saw them under load (CI: never fired). Since then the input past
// the trigger is held back (held_input.go), which closes that race at any
// tick; each read is a DescribeShareGroupOffsets, so a longer tick is the
// broker CPU back, not yet measured.
const drainTick = 500 * time.Millisecond

// drain waits until the share group is done with every input record, the
// drain times out, the workers cannot be kept running, or ctx ends.
func (r *cellRun) drain(ctx context.Context, admin *kgo.Client, ws *workerSet) (bool, error) {
	if err := r.awaitSeeder(ctx, admin, ws); err != nil {
		return false, err
	}
	deadline := time.Now().Add(r.o.DrainTimeout)
	tick := time.NewTicker(drainTick)
	defer tick.Stop()
	stall := newStallWatch(r.o.Lock)
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-tick.C:
		}
		if err := ws.failure(); err != nil {
			return false, err
		}
		if err := r.held.failure(); err != nil {
			return false, err
		}
		done, total, start, end, ok := r.shareState(ctx, admin)
		r.prog.show(r.plan, done, total)
		if total > 0 && done >= total && !ws.faultPending() {
			return true, nil
		}
		if ok && !ws.faultPending() {
			if ps := stall.stuck(time.Now(), done, time.Unix(0, r.lastFault.Load()), start, end); len(ps) > 0 {
				r.nudge(ctx, stall, ps, start, end)
			}
		}
		if time.Now().After(deadline) {
			return false, nil
		}
	}
}

// observe reads what the cell left: inputs, committed outputs, the share
// group's end state and every history.
func (r *cellRun) observe(ctx context.Context, admin *kgo.Client) (*ctp.Observation, error) {
	bs := r.c.Bootstrap()
	// The three reads are independent: run them at once (each waits out
	// its own quiet period at the end of its topic).
	var (
		wg                     sync.WaitGroup
		inputs                 []ctp.Input
		outputs                []ctp.Output
		start, end             map[int32]int64
		inErr, outErr, progErr error
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		inputs, inErr = ctp.ReadInputs(ctx, bs, r.topo.InputTopic, cluster.ClientOpts(r.c)...)
	}()
	go func() {
		defer wg.Done()
		outputs, outErr = ctp.ReadOutputs(ctx, bs, r.topo.OutputTopic, cluster.ClientOpts(r.c)...)
	}()
	go func() {
		defer wg.Done()
		start, end, progErr = shareProgressSettled(ctx, admin, r.topo.Group, r.topo.InputTopic)
	}()
	wg.Wait()
	// A hanging transaction on an output partition is the system's doing,
	// judged as an anomaly on what could be read (ctp.HangingError).
	var hanging *ctp.HangingError
	if errors.As(outErr, &hanging) {
		outErr = nil
	}
	if err := errors.Join(inErr, outErr, progErr); err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	h, err := history.ReadDir(filepath.Join(r.dir, "histories"))
	if err != nil && !history.IsNoHistory(err) {
		return nil, fmt.Errorf("observe: %w", err)
	}
	return &ctp.Observation{Mode: r.plan.mode, Realization: r.plan.realization, InputTopic: r.topo.InputTopic, Inputs: inputs, Outputs: outputs,
		ShareStart: start, InputEnd: end, DeliveryLimit: harness.DeliveryLimit, History: h, HangingOutputs: hangingPartitions(hanging)}, nil
}

// shareProgressSettled reads the share group's end state, asking again for a
// while when a request fails: right after a cluster fault healed, the
// admin client's connection to a restarted broker can time out once (seen
// on Kafka 4.2.2 after case 4: an i/o timeout on DescribeShareGroupOffsets)
// although the broker answers the next request.
func shareProgressSettled(ctx context.Context, admin *kgo.Client, group, topic string) (map[int32]int64, map[int32]int64, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		start, end, err := ctp.ShareProgress(rctx, admin, group, topic)
		cancel()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return start, end, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func hangingPartitions(h *ctp.HangingError) []ctp.HangingPartition {
	if h == nil {
		return nil
	}
	return h.Partitions
}
