package cell

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// execute runs the cell's phases in order: set up its topics, seed, join
// its row (a shared fault's Align), configure the group, start the workers,
// run the load beside the injection until the drain, heal, drain again if
// the fault acted after the drain, stop the workers and read back what the
// cell left. It returns the observation when the cell got far enough to
// judge. Its cleanup (heal what a fault left, delete the topics) is the
// caller's, after every phase here has ended.
func (r *run) execute(ctx context.Context) (*ctp.Observation, []string, error) {
	admin, err := cluster.NewClient(r.env.Cluster, kgo.ClientID("sharechaos-orchestrator"))
	if err != nil {
		return nil, nil, fmt.Errorf("create admin client: %w", err)
	}
	defer admin.Close()
	if err := r.setUp(ctx, admin); err != nil {
		return nil, nil, err
	}
	defer r.seeding.stop()
	if err := r.seed(ctx); err != nil {
		return nil, nil, err
	}
	if err := r.configure(ctx, admin); err != nil {
		return nil, nil, err
	}
	r.phases.begin(result.PhaseWorkersStart)
	ws := r.workers()
	if err := ws.Start(); err != nil {
		return nil, nil, err
	}
	defer ws.Stop(workerGrace)
	drained, err := r.load(ctx, admin, ws)
	if err != nil {
		return nil, nil, err
	}
	// A last moment for acks in flight, then stop the workers gracefully.
	r.phases.begin(result.PhaseTeardown)
	time.Sleep(time.Second)
	ws.Stop(workerGrace)
	if err := ws.Failure(); err != nil {
		return nil, nil, err
	}
	r.phases.begin(result.PhaseReadBack)
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancel()
	obs, err := r.observe(octx, admin)
	if err != nil {
		return nil, nil, err
	}
	return obs, r.drainNotes(drained), nil
}

// workerGrace is how long a stopping worker may take to abort its
// transaction and leave before it is killed.
const workerGrace = 20 * time.Second

// setUp creates the cell's topics.
func (r *run) setUp(ctx context.Context, admin *kgo.Client) error {
	rf, minISR := int16(3), 2
	if n := len(r.env.Cluster.Nodes()); n < 3 {
		rf, minISR = int16(n), 1
	}
	r.topo = ctp.NewTopology(fmt.Sprintf("sc-%s-c%02d", r.env.RunID, r.plan.Index), r.s.Partitions, rf, minISR)
	r.phases.begin(result.PhaseTopicSetup)
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := ctp.CreateTopics(sctx, admin, r.topo); err != nil {
		return fmt.Errorf("set up cell: %w", err)
	}
	return nil
}

// seed writes what goes in before the workers start (the seeding
// strategy), then joins the cell's row: a shared fault's Align may rename
// the group before anyone joins it.
func (r *run) seed(ctx context.Context) error {
	r.phases.begin(result.PhaseSeeding)
	r.env.Display.Phase(r.plan, PhaseSeeding)
	if err := r.seeding.start(ctx, r); err != nil {
		return err
	}
	if r.plan.Share != nil {
		r.phases.begin(result.PhaseAlign)
		return r.plan.Share.join(ctx, r)
	}
	return nil
}

// configure sets the share group's configs.
func (r *run) configure(ctx context.Context, admin *kgo.Client) error {
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := ctp.SetGroupConfigs(sctx, admin, r.topo.Group, ctp.GroupConfig{Lock: r.s.Lock, DeliveryLimit: harness.DeliveryLimit}); err != nil {
		return fmt.Errorf("set up cell: %w", err)
	}
	if err := r.rowFeatures(sctx, admin); err != nil {
		return err
	}
	if err := r.setUpDLQ(sctx, admin); err != nil {
		return err
	}
	return r.rowGroupConfigs(sctx, admin)
}

// rowGroupConfigs sets the group configs the row names for itself
// (Scenario.GroupConfigs). A config the broker does not know makes the cell
// N/A (notApplicable): this Kafka has no such switch.
func (r *run) rowGroupConfigs(ctx context.Context, admin *kgo.Client) error {
	gc := r.plan.Scenario.GroupConfigs
	if len(gc) == 0 {
		return nil
	}
	err := cluster.SetGroupConfigs(ctx, admin, r.topo.Group, gc)
	if errors.Is(err, kerr.InvalidConfig) || errors.Is(err, kerr.InvalidRequest) {
		return &notApplicable{fmt.Sprintf("the row sets the share-group config %s, which this Kafka does not know (%v)", configWords(gc), err)}
	}
	if err != nil {
		return fmt.Errorf("set the row's group configs %s: %w", configWords(gc), err)
	}
	return nil
}

// notApplicable ends a cell as N/A with its reason: found only once the
// cell asked the cluster (a group config it does not know).
type notApplicable struct{ why string }

func (e *notApplicable) Error() string { return e.why }

// configWords prints configs as k=v, sorted.
func configWords(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ", ")
}

// load runs the load beside the injection until the drain; the injection
// heals before load returns, and a fault that acted or healed after the
// drain ended (a heal, a shared fault's later turns) is drained again, so
// the check meets the group quiescent after the heal (a broker restarted
// after the drain had moved a partition's share start back from 250 to 60:
// random-schedule/implicit, docker, unseen).
func (r *run) load(ctx context.Context, admin *kgo.Client, ws *workerset.Set) (bool, error) {
	r.env.Display.Phase(r.plan, PhaseLoad)
	r.phases.begin(result.PhaseLoad)
	injCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.inject.start(injCtx, r, admin, ws)
	drained, err := r.drain(ctx, admin, ws)
	drainEnded := time.Now()
	cancel()
	if r.inject.shared() {
		r.phases.begin(result.PhaseHeal)
	}
	injErr := r.inject.finish(ctx, r)
	if err == nil && injErr == nil && drained && r.progress.faultActedAfter(drainEnded) {
		r.phases.begin(result.PhaseDrain)
		r.env.Display.Phase(r.plan, PhaseDrain)
		drained, err = r.drain(ctx, admin, ws)
	}
	if err != nil {
		return false, err
	}
	if injErr != nil {
		return false, fmt.Errorf("inject %s: %w", r.plan.Name(), injErr)
	}
	return drained, nil
}
