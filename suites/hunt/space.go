package hunt

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Space is what the hunt draws from: shapes, the worker arms (every action
// at every point where the loop carries it out) and the cluster faults the
// backend runs.
type Space struct {
	// Menu is the cluster faults by their catalog rows' names; the hunt
	// drops one the backend cannot run once a trial says so.
	Menu []string
	// MaxFaults bounds the faults of one trial (worker arm included).
	MaxFaults int
	// deck is the worker arms still to deal (nil entries: no arm): every
	// arm comes once per deck, in an order drawn from the seed, so a hunt
	// covers them all before it repeats one.
	deck []*WorkerArm
}

// The shapes a trial draws from: small enough that a trial takes seconds,
// and reaching the corners the rows use (one partition shared by every
// worker, eight partitions for one worker, batches of one record).
var (
	drawRecords = []int{200, 400, 800, 1600}
	// drawScheduleRecords: a schedule's steps, each acting and healing
	// (a broker's restart takes 10-20 s) up to 6 s apart, need the load to
	// last (the catalog's cluster rows run 1000-2000 records).
	drawScheduleRecords = []int{1000, 2000}
	drawWorkers         = []int{1, 2, 3, 4}
	drawBatch           = []int32{1, 2, 5, 10}
	drawPartitions      = []int32{1, 2, 4, 8}
	// drawAfterLoad: when a schedule begins, as a fraction of the input.
	drawAfterLoad = []float64{0.05, 0.1, 0.2, 0.3, 0.5}
)

// drawGapMax bounds the pause before a schedule's later step.
const drawGapMax = 6 * time.Second

// Probabilities of a trial's parts.
const (
	// pSchedule: a trial with a worker arm gets cluster faults too (one
	// without an arm always does, when the menu has any).
	pSchedule = 0.5
	// pFreshID: a killed worker's replacement on a new transactional id.
	pFreshID = 0.25
	// pRowLoad: an arm's trial takes the load its catalog row sets (one
	// partition for the lock-expiry races) rather than a drawn one.
	pRowLoad = 0.5
	// noArms is how many trials of a deck have no worker arm.
	noArms = 4
)

// DefaultMenu is every cluster fault of the catalog a hunt mixes: its rows'
// mechanisms, without the rows that reproduce a known upstream bug (the
// hunt must find those on its own), the random schedule (the hunt is its
// generalization) and the release changes (a trial runs one release).
func DefaultMenu() []string {
	var out []string
	for _, s := range scenarios.All() {
		if s.Cluster == nil || s.Worker != nil || s.KnownBug != nil || s.Cluster.ChangesRelease || s.Name == "random-schedule" {
			continue
		}
		out = append(out, s.Name)
	}
	return out
}

// Arms are every worker arm the loop carries out: each action at each
// point where it acts (ctp.Action.ActsAt).
func Arms() []WorkerArm {
	var out []WorkerArm
	for _, a := range ctp.Actions {
		for _, p := range ctp.Points {
			if ok, _ := a.ActsAt(p); ok {
				out = append(out, WorkerArm{Point: p, Action: a})
			}
		}
	}
	return out
}

// Draw draws one trial from rng (its name is the caller's).
func (sp *Space) Draw(rng *rand.Rand) Trial {
	t := Trial{Shape: Shape{
		Records:    pick(rng, drawRecords),
		Workers:    pick(rng, drawWorkers),
		Batch:      pick(rng, drawBatch),
		Partitions: pick(rng, drawPartitions),
	}}
	budget := max(1, sp.MaxFaults)
	if arm := sp.deal(rng); arm != nil {
		t.Worker = arm
		arm.FreshID = arm.Action == ctp.ActionKill && rng.Float64() < pFreshID
		fitToRow(&t, rng)
		budget--
	}
	// A zombie's choreography is the orchestrator's own injection: it
	// runs without cluster faults.
	zombie := t.Worker != nil && t.Worker.Action == ctp.ActionStop
	if len(sp.Menu) > 0 && budget > 0 && !zombie && (t.Worker == nil || rng.Float64() < pSchedule) {
		s := &Schedule{AfterLoad: pick(rng, drawAfterLoad)}
		n := 1 + rng.IntN(budget)
		for i := 0; i < n; i++ {
			st := Step{Fault: pick(rng, sp.Menu)}
			if i > 0 {
				st.After = time.Duration(rng.Int64N(int64(drawGapMax/(250*time.Millisecond))+1)) * 250 * time.Millisecond
			}
			s.Steps = append(s.Steps, st)
		}
		t.Schedule = s
		t.Records = pick(rng, drawScheduleRecords)
	}
	return t
}

// deal is the deck's next arm (nil: none), the deck shuffled anew when
// it ran out.
func (sp *Space) deal(rng *rand.Rand) *WorkerArm {
	if len(sp.deck) == 0 {
		for _, a := range Arms() {
			sp.deck = append(sp.deck, &a)
		}
		for i := 0; i < noArms; i++ {
			sp.deck = append(sp.deck, nil)
		}
		rng.Shuffle(len(sp.deck), func(i, j int) { sp.deck[i], sp.deck[j] = sp.deck[j], sp.deck[i] })
	}
	a := sp.deck[0]
	sp.deck = sp.deck[1:]
	if a == nil {
		return nil
	}
	c := *a
	return &c
}

// fitToRow gives a trial's arm what the catalog's row of the same arm
// knows it needs: the row's least shape (a second worker to race, a
// second output partition to cut) always, and the row's own load (one
// partition every worker shares) half the time, so the hunt reaches the
// corner the row was written for and the shapes around it.
func fitToRow(t *Trial, rng *rand.Rand) {
	for _, s := range scenarios.All() {
		w := s.Worker
		if w == nil || w.Point != t.Worker.Point || w.Action != t.Worker.Action {
			continue
		}
		need := s.Requires.Shape
		t.Workers = max(t.Workers, need.Workers)
		t.Partitions = max(t.Partitions, need.Partitions)
		t.Batch = max(t.Batch, need.Batch)
		if s.Load.Partitions > 0 && rng.Float64() < pRowLoad {
			t.Partitions = max(s.Load.Partitions, need.Partitions)
		}
		return
	}
}

// without is the menu without name.
func (sp *Space) without(name string) {
	sp.Menu = slices.DeleteFunc(sp.Menu, func(n string) bool { return n == name })
}

func pick[T any](rng *rand.Rand, from []T) T { return from[rng.IntN(len(from))] }
