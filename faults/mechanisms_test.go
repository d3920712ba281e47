package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// The fake backends below implement capabilities only so that the rows'
// Needs (type assertions) and the faults' calls can be seen; every call is
// recorded.

type coreOnly struct{}

func (coreOnly) Name() string                { return "core" }
func (coreOnly) Nodes() []cluster.NodeID     { return []cluster.NodeID{1, 2, 3} }
func (coreOnly) Bootstrap() []string         { return []string{"127.0.0.1:1"} }
func (coreOnly) Close(context.Context) error { return nil }

// recording is a fake with processes and a network (not Roles, not links
// between brokers, no toxiproxy API).
type recording struct {
	coreOnly
	mu    sync.Mutex
	calls []string
	// onKill runs inside Kill (e.g. to end the cell at that moment).
	onKill func()
	// ctxAlive records, per call, whether its context was still alive.
	ctxAlive []bool
}

func (r *recording) note(ctx context.Context, call string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
	r.ctxAlive = append(r.ctxAlive, ctx.Err() == nil)
}

func (r *recording) Kill(ctx context.Context, n cluster.NodeID) error {
	r.note(ctx, "kill")
	if r.onKill != nil {
		r.onKill()
	}
	return nil
}
func (r *recording) Restart(ctx context.Context, n cluster.NodeID) error {
	r.note(ctx, "restart")
	return nil
}
func (r *recording) Isolate(ctx context.Context, n cluster.NodeID) error {
	r.note(ctx, "isolate")
	return nil
}
func (r *recording) SetLatency(ctx context.Context, l, j time.Duration) error {
	r.note(ctx, "latency "+l.String())
	return nil
}
func (r *recording) Pause(ctx context.Context, n cluster.NodeID) error {
	r.note(ctx, "pause")
	return nil
}
func (r *recording) Resume(ctx context.Context, n cluster.NodeID) error {
	r.note(ctx, "resume")
	return nil
}
func (r *recording) HealAll(ctx context.Context) error {
	r.note(ctx, "heal-all")
	return nil
}

// full claims every capability the faults look for.
type full struct{ recording }

func (*full) Coordinator(context.Context, cluster.CoordKind, string) (cluster.NodeID, error) {
	return 1, nil
}
func (*full) MoveLeader(context.Context, string, int32, cluster.NodeID) error { return nil }
func (*full) Disconnect(context.Context, cluster.NodeID, cluster.NodeID) error {
	return nil
}
func (*full) ProxyAPI() string { return "http://127.0.0.1:1" }

// Links: the docker layout's, for brokers 1 to 3.
func (f *full) Links() []cluster.Link {
	var ls []cluster.Link
	for _, to := range f.Nodes() {
		ls = append(ls, cluster.Link{Name: fmt.Sprintf("client-%d", to), Kind: cluster.LinkClient, To: to})
		for _, from := range f.Nodes() {
			ls = append(ls, cluster.Link{Name: fmt.Sprintf("internal-%d-%d", from, to), Kind: cluster.LinkInternal, From: from, To: to})
		}
	}
	return ls
}

// clientLinksOnly is a backend whose toxiproxy has the client links and no
// link between brokers (an external toxiproxy in front of the clients only).
type clientLinksOnly struct{ full }

func (*clientLinksOnly) Links() []cluster.Link {
	return []cluster.Link{{Name: "client-1", Kind: cluster.LinkClient, To: 1}, {Name: "client-2", Kind: cluster.LinkClient, To: 2},
		{Name: "client-3", Kind: cluster.LinkClient, To: 3}}
}

// TestCase4NeedsTheLinksBetweenBrokers: late-endtxn acts on client links
// and runs with a toxiproxy that has only those; case 4 holds markers
// between brokers, and is N/A naming the proxy it lacks.
func TestCase4NeedsTheLinksBetweenBrokers(t *testing.T) {
	c := &clientLinksOnly{}
	if why := LateEndTxn.Needs(c); why != "" {
		t.Errorf("late-endtxn: N/A %q", why)
	}
	why := CoordinatorCrashAfterEndTxn.Needs(c)
	if !strings.Contains(why, "internal-1-2") || !strings.Contains(why, "http://127.0.0.1:1") {
		t.Errorf("case 4's reason does not name the missing proxy and the toxiproxy: %q", why)
	}
}

// mechanisms is every cluster fault, by the name its scenario has.
func mechanisms() map[string]Mechanism {
	m := map[string]Mechanism{"broker-kill": BrokerKill, "coordinator-crash-after-endtxn": CoordinatorCrashAfterEndTxn,
		"share-state-leader-kill": ShareStateLeaderKill, "data-leader-kill": DataLeaderKill, "data-leader-kill-after-endtxn": DataLeaderKillAfterEndTxn, "partition": Partition,
		"slow-network": SlowNetwork, "rolling-restart": RollingRestart, "late-endtxn": LateEndTxn,
		"stranded-txn-leader-move": StrandedTxnLeaderMove, "broker-pause": BrokerPause, "link-cut": LinkCut}
	beyond := func() []Part {
		var ps []Part
		for _, n := range []string{"broker-kill", "share-state-leader-kill", "data-leader-kill", "partition", "slow-network", "rolling-restart", "late-endtxn"} {
			ps = append(ps, Part{n, m[n]})
		}
		return ps
	}
	m["random-schedule"] = RandomSchedule(beyond)
	return m
}

// TestNeedsPerBackend: every cluster fault runs where every capability is
// there; on a backend with none of them, or on the embedded backend, the
// ones that cannot run say why, and the ones that can say nothing.
func TestNeedsPerBackend(t *testing.T) {
	for name, f := range mechanisms() {
		if why := f.Needs(&full{}); why != "" {
			t.Errorf("%s on a backend with every capability: N/A %q", name, why)
		}
		if why := f.Needs(coreOnly{}); why == "" {
			t.Errorf("%s on a backend without capabilities: runs", name)
		}
	}
	// The embedded backend (kfake): client links only, no kill -9, no
	// toxiproxy API. Only the slow network can run there.
	var emb cluster.Cluster = (*embedded.Cluster)(nil)
	for name, f := range mechanisms() {
		why := f.Needs(emb)
		if runs := why == ""; runs != (name == "slow-network") {
			t.Errorf("%s on embedded: N/A reason %q", name, why)
		}
		t.Logf("%s on embedded: %q", name, why)
	}
	if why := needsHeldMarkers(emb); !strings.Contains(why, "PREPARE_COMMIT") {
		t.Errorf("case 4's reason does not name the missing PREPARE_COMMIT window: %q", why)
	}
	menu := func() []Part { return []Part{{"slow-network", SlowNetwork}, {"broker-kill", BrokerKill}} }
	if why := RandomSchedule(menu).Needs(emb); !strings.Contains(why, "slow-network") {
		t.Errorf("random-schedule's reason does not say what the backend could run: %q", why)
	}
}

func recorder() (*[]history.Event, func(history.Event)) {
	var mu sync.Mutex
	var evs []history.Event
	return &evs, func(e history.Event) {
		mu.Lock()
		defer mu.Unlock()
		evs = append(evs, e)
	}
}

func testEnv(c cluster.Cluster, fire func(history.Event)) Env {
	return Env{Name: "test-fault", Cluster: c, Topology: ctp.NewTopology("sc-test", 4, 3, 2), Rand: rand.New(rand.NewPCG(1, 2)),
		Fired: fire, Progress: func(context.Context) (int64, int64) { return 1, 1 }, Workers: 3}
}

// TestKilledBrokerComesBackWhenTheCellEnds: the cell drains while the broker
// is down (ctx ends inside Kill); the restart still runs, under a live
// context, and both the firing and the heal are on the timeline, in order.
func TestKilledBrokerComesBackWhenTheCellEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &recording{onKill: cancel}
	evs, fire := recorder()
	began := time.Now()
	env := testEnv(c, fire)
	env.Name = "broker-kill"
	rep, err := Inject(ctx, BrokerKill, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Fired) != 1 || len(rep.Healed) != 1 || rep.Name != "broker-kill" || rep.Healed[0].Before(rep.Fired[0].At) {
		t.Errorf("report %+v, want one firing, then one heal", rep)
	}
	if !slices.Equal(c.calls, []string{"kill", "restart"}) || !c.ctxAlive[1] {
		t.Fatalf("calls %v (context alive: %v), want a kill, then a restart under a live context", c.calls, c.ctxAlive)
	}
	if took := time.Since(began); took >= downTime {
		t.Errorf("the broker stayed down %v although the cell ended", took)
	}
	if len(*evs) != 2 || (*evs)[0].F != history.FFaultFired || (*evs)[1].F != history.FHeal {
		t.Fatalf("events %+v, want fault-fired then heal", *evs)
	}
	if e := (*evs)[0]; e.Attrs["action"] != "kill -9" || e.Attrs["node"] == "" || e.TS == 0 || e.Fault != "broker-kill" {
		t.Errorf("fault-fired event %+v", e)
	}
}

// TestUnderLoadWaitsForLoad: a fault acts only once the load reached its
// fraction, and not at all when the cell ends first (nothing fired: the
// runner makes that cell UNKNOWN).
func TestUnderLoadWaitsForLoad(t *testing.T) {
	acted := 0
	act := func(context.Context, Env) error { acted++; return nil }
	env := testEnv(coreOnly{}, func(history.Event) {})
	var done int64
	env.Progress = func(context.Context) (int64, int64) { done += 10; return done, 100 }
	m := Mechanism{Act: act}.UnderLoad(0.3)
	if err := m.Act(context.Background(), env); err != nil || acted != 1 || done < 30 {
		t.Fatalf("acted %d at %d/100 (err %v), want once at 30/100 or later", acted, done, err)
	}
	env.Progress = func(context.Context) (int64, int64) { return 0, 100 }
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := m.Act(ctx, env); err != nil || acted != 1 {
		t.Fatalf("acted %d times (err %v) although the load never came", acted, err)
	}
}

// TestUnderLoadTakesHoldBeforeActing: the held input is asked for once the
// trigger came and before the fault acts (so it is written on a healthy
// cluster), never when the cell ended before the trigger.
func TestUnderLoadTakesHoldBeforeActing(t *testing.T) {
	var order []string
	act := func(context.Context, Env) error { order = append(order, "act"); return nil }
	env := testEnv(coreOnly{}, func(history.Event) {})
	var done int64
	env.Progress = func(context.Context) (int64, int64) { done += 10; return done, 100 }
	env.TookHold = func() { order = append(order, fmt.Sprintf("hold at %d", done)) }
	m := Mechanism{Act: act}.UnderLoad(0.3)
	if err := m.Act(context.Background(), env); err != nil || !slices.Equal(order, []string{"hold at 30", "act"}) {
		t.Fatalf("order %v (err %v), want the hold at the trigger (30/100), then the act", order, err)
	}
	order = nil
	env.Progress = func(context.Context) (int64, int64) { return 0, 100 }
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := m.Act(ctx, env); err != nil || len(order) != 0 {
		t.Fatalf("order %v (err %v) although the trigger never came", order, err)
	}
}

// TestSlowNetworkSetsAndHealsLatency: latency on, fired, then every link
// healed, also when the cell ends during the slow spell.
func TestSlowNetworkSetsAndHealsLatency(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &recording{}
	evs, fire := recorder()
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if err := slowNetwork(ctx, testEnv(c, fire)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.calls, []string{"latency " + slowLatency.String(), "heal-all"}) || !c.ctxAlive[1] {
		t.Fatalf("calls %v (alive %v)", c.calls, c.ctxAlive)
	}
	if len(*evs) != 2 || (*evs)[0].F != history.FFaultFired || (*evs)[0].Attrs["latency"] != "100ms" || (*evs)[1].F != history.FHeal {
		t.Fatalf("events %+v", *evs)
	}
}

func TestRandomScheduleIsSeeded(t *testing.T) {
	var pool []Part
	for name, m := range mechanisms() {
		if name != "coordinator-crash-after-endtxn" && name != "random-schedule" {
			pool = append(pool, Part{name, m})
		}
	}
	slices.SortFunc(pool, func(a, b Part) int { return strings.Compare(a.Name, b.Name) })
	draw := func(seed uint64) []string { return partNames(drawSchedule(rand.New(rand.NewPCG(seed, 0)), pool)) }
	first := draw(7)
	if len(first) != scheduleParts {
		t.Fatalf("drew %v, want %d parts", first, scheduleParts)
	}
	seen := map[string]bool{}
	for _, n := range first {
		if seen[n] {
			t.Fatalf("drew %v: %s twice (one-shot each)", first, n)
		}
		seen[n] = true
	}
	if again := draw(7); !slices.Equal(first, again) {
		t.Errorf("seed 7 drew %v, then %v", first, again)
	}
	differs := false
	for seed := uint64(8); seed < 20 && !differs; seed++ {
		differs = !slices.Equal(first, draw(seed))
	}
	if !differs {
		t.Error("every seed drew the same schedule")
	}
	if got := drawSchedule(rand.New(rand.NewPCG(1, 1)), pool[:2]); len(got) != 2 {
		t.Errorf("a pool of two drew %d parts", len(got))
	}
}

// A schedule's events carry the schedule's name, with the part and the whole
// schedule in the attributes, and its report gathers every part's firings.
func TestScheduleEventsCarryTheScheduleName(t *testing.T) {
	evs, fire := recorder()
	env := testEnv(&recording{}, fire)
	env.Name = "random-schedule"
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	rep, err := Inject(ctx, RandomSchedule(func() []Part { return []Part{{"slow-network", SlowNetwork}, {"broker-kill", BrokerKill}} }), env)
	if err != nil {
		t.Fatal(err)
	}
	if len(*evs) == 0 || len(rep.Fired) == 0 {
		t.Fatalf("events %+v, report %+v", *evs, rep)
	}
	e := (*evs)[0]
	if e.Fault != "random-schedule" || e.Attrs["part"] == "" || !strings.Contains(e.Attrs["schedule"], e.Attrs["part"]) {
		t.Errorf("event %+v", e)
	}
}
