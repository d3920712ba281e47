package hunt

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// Options are a hunt's settings: the run's (backend, releases, clients,
// modes) and the hunt's own.
type Options struct {
	suites.Options
	// Budget is how long the hunt draws and runs trials; ShrinkBudget how
	// long it may shrink each finding (0: Budget).
	Budget       time.Duration
	ShrinkBudget time.Duration
	// MaxFaults bounds a trial's faults; Replays is how often shrinking
	// runs each candidate (it must fail in two thirds of them).
	MaxFaults int
	Replays   int
	// TrialsPerRound are run in one cluster's run.
	TrialsPerRound int
	// Findings is how many distinct findings the hunt shrinks before it
	// stops.
	Findings int
	// Menu is the cluster faults to mix (nil: DefaultMenu).
	Menu []string
	// DrawConsumer: each round draws the implicit and explicit modes'
	// share consumer (the user did not name one).
	DrawConsumer bool
}

// Defaults.
const (
	DefaultBudget         = 10 * time.Minute
	DefaultMaxFaults      = 3
	DefaultReplays        = 3
	DefaultTrialsPerRound = 4
	DefaultFindings       = 1
)

// Report is what a hunt tried and found (hunt.json).
type Report struct {
	Seed        int64     `json:"seed"`
	BudgetS     float64   `json:"budget_s"`
	Backend     string    `json:"backend"`
	BackendWhy  string    `json:"backend_why,omitempty"`
	Started     time.Time `json:"started"`
	TookS       float64   `json:"took_s"`
	Interrupted bool      `json:"interrupted,omitempty"`
	// Menu is the cluster faults the hunt mixed; Dropped those it dropped,
	// each with the backend's reason.
	Menu     []string          `json:"menu"`
	Dropped  map[string]string `json:"dropped,omitempty"`
	Trials   []Outcome         `json:"trials"`
	Findings []Finding         `json:"findings"`
	Coverage Coverage          `json:"coverage"`
	ExitCode int               `json:"exit_code"`
	Dir      string            `json:"dir"`
	// Env are the environment variables that change what runs (a mutant
	// of the loop, a broken reference broker): a replay needs them too.
	Env []string `json:"env,omitempty"`
}

// Outcome is one trial's cells.
type Outcome struct {
	Trial Trial         `json:"trial"`
	Round int           `json:"round"`
	Dir   string        `json:"dir"`
	Cells []CellOutcome `json:"cells"`
}

// CellOutcome is one cell of a trial, as the checker judged it.
type CellOutcome struct {
	Dimensions
	Verdict   verdict.Verdict `json:"verdict"`
	Reason    string          `json:"reason,omitempty"`
	Anomalies []string        `json:"anomalies,omitempty"`
	Fired     bool            `json:"fired"`
	Seconds   float64         `json:"seconds"`
	Dir       string          `json:"dir,omitempty"`
}

// Finding is an ANOMALY cell of a trial, and its shrink.
type Finding struct {
	Trial     Trial       `json:"trial"`
	Cell      CellOutcome `json:"cell"`
	Anomalies []string    `json:"anomalies"`
	Shrink    *Shrink     `json:"shrink,omitempty"`
	// File is the shrunk scenario file, Command the one that replays it.
	File    string `json:"file,omitempty"`
	Command string `json:"command,omitempty"`
	// SameAs names the earlier finding this one repeats (not shrunk again).
	SameAs int `json:"same_as,omitempty"`
}

// hunter is one hunt's state.
type hunter struct {
	o      Options
	rng    *rand.Rand
	space  Space
	rep    *Report
	say    func(format string, args ...any)
	failed int // rounds in a row the backend failed
	// run runs trials on the backend (runTrials; a test's fake decides
	// what fails without brokers).
	run func(ctx context.Context, dir string, seed int64, repeats int, only *Dimensions, trials ...Trial) (result.Result, error)
}

// Run hunts until the budget ends, ctx is cancelled, or it shrank
// Options.Findings findings, and writes hunt.json and hunt.md into the
// hunt's directory. A *harness.UsageError means nothing ran.
func Run(ctx context.Context, opts Options) (Report, error) {
	o, err := opts.validated()
	if err != nil {
		return Report{ExitCode: verdict.ExitUsage}, err
	}
	choice := harness.ChooseBackend(ctx, o.Backend)
	o.Backend = choice.Name
	// The reference broker speaks both realizations: the hunt runs both
	// unless the user chose one.
	// The Java worker runs the ledger only.
	switch {
	case len(o.Realizations) > 0 || o.TxnAcks != string(kip1289.ChoiceAuto) || !slices.Contains(o.Modes, ctp.Transactional):
	case slices.Contains(o.Clients, workerset.ClientJava):
		o.Realizations = []string{kip1289.RealizationLedger}
	case o.Backend == "embedded":
		o.Realizations = kip1289.RealizationNames()
	}
	// What the backend cannot run leaves the menu before the first draw.
	cannot, err := probeMenu(ctx, o, choice)
	var ue *harness.UsageError
	if errors.As(err, &ue) {
		return Report{ExitCode: verdict.ExitUsage}, err
	}
	if err != nil {
		o.Log.Warn("probe the backend's faults", "err", err)
	}
	_, statErr := os.Stat(o.Out)
	created := os.IsNotExist(statErr)
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return Report{ExitCode: verdict.ExitUsage}, harness.Usagef("--out %s: %v", o.Out, err)
	}
	h := &hunter{o: o, rng: rand.New(rand.NewPCG(uint64(o.Seed), 0x68756e74)),
		space: Space{Menu: slices.Clone(o.Menu), MaxFaults: o.MaxFaults},
		rep: &Report{Seed: o.Seed, BudgetS: o.Budget.Seconds(), Backend: o.Backend, Started: time.Now(),
			BackendWhy: choice.Why, Menu: slices.DeleteFunc(slices.Clone(o.Menu), func(m string) bool { _, no := cannot[m]; return no }), Dropped: map[string]string{}, Dir: o.Out, Env: replayEnv()}}
	for m, why := range cannot {
		h.space.without(m)
		h.rep.Dropped[m] = why
	}
	h.run = func(ctx context.Context, dir string, seed int64, repeats int, only *Dimensions, trials ...Trial) (result.Result, error) {
		return runTrials(ctx, o.Options, dir, seed, repeats, only, trials...)
	}
	rep, err := h.start(ctx)
	if errors.As(err, &ue) && len(rep.Trials) == 0 && created {
		// Nothing ran (a release or image the backend lacks, found by the
		// first round's run): leave nothing behind.
		_ = os.RemoveAll(o.Out)
		rep.Dir = ""
	}
	return rep, err
}

// start runs the hunt h was set up for and writes its report.
func (h *hunter) start(ctx context.Context) (Report, error) {
	o := h.o
	h.say = func(format string, args ...any) {
		fmt.Fprintf(o.Progress, "[%s] %s\n", time.Since(h.rep.Started).Round(time.Second), fmt.Sprintf(format, args...))
	}
	h.say("hunt: backend %s (%s)", o.Backend, h.rep.BackendWhy)
	h.say("hunt: seed %d, budget %s, backend %s, at most %d faults a trial, menu of %d cluster faults: %s",
		o.Seed, o.Budget, o.Backend, o.MaxFaults, len(h.space.Menu), strings.Join(h.space.Menu, ", "))
	if len(h.rep.Dropped) > 0 {
		h.say("hunt: off the menu, the backend cannot run them: %s", strings.Join(slices.Sorted(maps.Keys(h.rep.Dropped)), ", "))
	}
	err := h.hunt(ctx)
	h.rep.Interrupted = ctx.Err() != nil
	h.rep.TookS = time.Since(h.rep.Started).Seconds()
	h.rep.Coverage = coverageOf(h.rep)
	h.rep.ExitCode = h.exitCode(err)
	if werr := write(*h.rep); werr != nil {
		err = errors.Join(err, werr)
	}
	return *h.rep, err
}

func (o Options) validated() (Options, error) {
	o.Common = o.Common.WithDefaults()
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.ShrinkBudget == 0 {
		o.ShrinkBudget = o.Budget
	}
	if o.MaxFaults == 0 {
		o.MaxFaults = DefaultMaxFaults
	}
	if o.Replays == 0 {
		o.Replays = DefaultReplays
	}
	if o.TrialsPerRound == 0 {
		o.TrialsPerRound = DefaultTrialsPerRound
	}
	if o.Findings == 0 {
		o.Findings = DefaultFindings
	}
	if o.Menu == nil {
		o.Menu = DefaultMenu()
	}
	for _, m := range o.Menu {
		if !slices.Contains(DefaultMenu(), m) {
			return o, harness.Usagef("--fault %q: not a cluster fault the hunt mixes (want one of %s)", m, strings.Join(DefaultMenu(), ", "))
		}
	}
	if o.Budget < 0 || o.ShrinkBudget < 0 || o.MaxFaults < 0 || o.Replays < 0 || o.TrialsPerRound < 0 || o.Findings < 0 {
		return o, harness.Usagef("a hunt's budgets and counts must be positive")
	}
	if o.Seed == 0 {
		o.Seed = rand.Int64N(1<<53) + 1
	}
	if o.Out == "" {
		o.Out = filepath.Join("runs", "hunt-"+time.Now().Format("20060102-150405"))
	}
	// The run's own checks (backend, modes, clients) before anything runs.
	if _, err := o.Options.Validated(); err != nil {
		return o, err
	}
	return o, nil
}

// hunt draws and runs rounds of trials until the budget ends.
func (h *hunter) hunt(ctx context.Context) error {
	deadline := h.rep.Started.Add(h.o.Budget)
	n := 0
	for round := 1; time.Now().Before(deadline) && ctx.Err() == nil; round++ {
		var trials []Trial
		for i := 0; i < h.o.TrialsPerRound; i++ {
			n++
			t := h.space.Draw(h.rng)
			t.Name = fmt.Sprintf("hunt/%d-%d", h.o.Seed, n)
			trials = append(trials, t)
		}
		consumer := h.o.Consumer
		if h.o.DrawConsumer {
			consumer = pick(h.rng, ctp.Consumers)
		}
		seed := h.rng.Int64N(1<<53) + 1
		for _, t := range trials {
			h.say("trial %s: %s", t.Name, t)
		}
		dir := filepath.Join(h.o.Out, "rounds", fmt.Sprintf("round-%d", round))
		res, err := h.run(ctx, dir, seed, 1, &Dimensions{Consumer: consumer}, trials...)
		var ue *harness.UsageError
		if errors.As(err, &ue) {
			return err
		}
		if err == nil && !slices.ContainsFunc(res.Runs, func(c result.Cell) bool { return c.Verdict != verdict.HarnessError }) {
			err = fmt.Errorf("every cell of round %d was HARNESS-ERROR (%s)", round, firstReason(res.Runs))
		}
		if err != nil {
			h.failed++
			h.say("round %d: the backend failed: %v", round, err)
			if h.failed >= 3 {
				return fmt.Errorf("the backend failed 3 rounds in a row, the last: %w", err)
			}
			continue
		}
		h.failed = 0
		for _, t := range trials {
			out := Outcome{Trial: t, Round: round, Dir: dir}
			for _, c := range res.Runs {
				if c.Scenario == t.Name {
					out.Cells = append(out.Cells, cellOutcome(c, consumer, res.Dir))
				}
			}
			h.rep.Trials = append(h.rep.Trials, out)
			h.say("  %s → %s", t.Name, verdictsOf(out.Cells))
			h.dropUnrunnable(t, out.Cells)
			for _, c := range out.Cells {
				if c.Verdict == verdict.Anomaly {
					if err := h.found(ctx, t, c); err != nil {
						return err
					}
				}
			}
		}
		if h.shrunk() >= h.o.Findings {
			h.say("hunt: %d finding(s) made certain and shrunk, stopping", h.shrunk())
			return nil
		}
	}
	return nil
}

// dropUnrunnable takes off the menu a cluster fault the backend cannot run
// (a trial's cells N/A naming the step).
func (h *hunter) dropUnrunnable(t Trial, cells []CellOutcome) {
	for _, c := range cells {
		if c.Verdict != verdict.NA {
			continue
		}
		for _, m := range t.Mechanisms() {
			if strings.Contains(c.Reason, "step "+m+": ") && slices.Contains(h.space.Menu, m) {
				h.space.without(m)
				h.rep.Dropped[m] = c.Reason
				h.say("  %s cannot run on this backend, off the menu: %s", m, c.Reason)
			}
		}
	}
}

// shrunk is how many findings were made certain: shrunk from a trial
// that failed in two thirds of its replays.
func (h *hunter) shrunk() int {
	n := 0
	for _, f := range h.rep.Findings {
		if f.certain() {
			n++
		}
	}
	return n
}

// certain: the finding's trial failed in two thirds of its replays.
func (f Finding) certain() bool { return f.Shrink != nil && f.Shrink.Failed >= need(f.Shrink.Replays) }

// found records an ANOMALY cell and shrinks it, unless it repeats an
// earlier finding (the same anomalies in another mode of the same trial,
// or in the same mode of another trial), or the hunt shrank as many as it
// was asked to.
func (h *hunter) found(ctx context.Context, t Trial, c CellOutcome) error {
	f := Finding{Trial: t, Cell: c, Anomalies: c.Anomalies}
	for i, e := range h.rep.Findings {
		sameTrial := e.Trial.Name == t.Name
		sameCell := e.Cell.Dimensions.String() == c.Dimensions.String()
		// A finding whose replays did not fail often enough is no
		// reason to pass by the same failure again: it gets its chance.
		flaky := e.Shrink != nil && !e.certain()
		if e.SameAs == 0 && !flaky && (sameTrial || sameCell) && slices.Equal(e.Anomalies, c.Anomalies) {
			f.SameAs = i + 1
			h.rep.Findings = append(h.rep.Findings, f)
			h.say("finding %d: %s %s: %s, as finding %d", len(h.rep.Findings), t.Name, c.Dimensions, strings.Join(c.Anomalies, ", "), i+1)
			return nil
		}
	}
	h.rep.Findings = append(h.rep.Findings, f)
	i := len(h.rep.Findings)
	if ctx.Err() != nil {
		h.say("finding %d: %s %s: %s (not shrunk: interrupted)", i, t.Name, c.Dimensions, strings.Join(c.Anomalies, ", "))
		return nil
	}
	if h.shrunk() >= h.o.Findings {
		h.say("finding %d: %s %s: %s (not shrunk: --findings %d were)", i, t.Name, c.Dimensions, strings.Join(c.Anomalies, ", "), h.o.Findings)
		return nil
	}
	h.say("finding %d: %s %s: %s (%s); shrinking, %d replays a candidate", i, t.Name, c.Dimensions, strings.Join(c.Anomalies, ", "), c.Reason, h.o.Replays)
	s, err := h.shrink(ctx, i, f)
	if err != nil {
		return err
	}
	f.Shrink = &s
	f.File, f.Command, err = h.writeFinding(i, f)
	if err != nil {
		return err
	}
	h.rep.Findings[i-1] = f
	h.say("finding %d shrunk: faults %d → %d, records %d → %d, cell %.0fs → %.0fs; fails %d of %d replays (%s)",
		i, s.Before.Faults, s.After.Faults, s.Before.Records, s.After.Records, s.Before.Seconds, s.After.Seconds, s.Failed, s.Replays, s.Stopped)
	h.say("  scenario file: %s", f.File)
	h.say("  replay: %s", f.Command)
	return nil
}

func (h *hunter) exitCode(err error) int {
	var ue *harness.UsageError
	switch {
	case errors.As(err, &ue):
		return verdict.ExitUsage
	case len(h.rep.Findings) > 0:
		return verdict.ExitAnomaly
	case err != nil:
		return verdict.ExitHarnessError
	}
	return verdict.ExitPass
}

func cellOutcome(c result.Cell, consumer, runDir string) CellOutcome {
	dir := c.Dir
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(runDir, dir)
	}
	return CellOutcome{Dimensions: dimensionsOf(c, consumer), Verdict: c.Verdict, Reason: c.Reason,
		Anomalies: anomalies(c), Fired: c.Fault.Fired, Seconds: c.DurationS, Dir: dir}
}

// verdictsOf is a trial's cells in one line.
func verdictsOf(cells []CellOutcome) string {
	var out []string
	for _, c := range cells {
		s := fmt.Sprintf("%s %s", c.Dimensions, c.Verdict)
		if len(c.Anomalies) > 0 {
			s += " (" + strings.Join(c.Anomalies, ", ") + ")"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "no cells"
	}
	return strings.Join(out, " · ")
}

// firstReason is the first cell's reason, for a round that judged nothing.
func firstReason(cells []result.Cell) string {
	for _, c := range cells {
		if c.Reason != "" {
			return c.Reason
		}
	}
	return "no cells"
}
