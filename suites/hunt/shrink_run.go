package hunt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
)

// need is how many of n replays must fail: two thirds, rounded up.
func need(n int) int { return (2*n + 2) / 3 }

// shrink makes finding i certain (its trial replayed) and small: each
// candidate of the current trial (candidates) replays Options.Replays
// times in the finding's dimensions, and the first that fails as often as
// need, with one of the finding's anomalies, becomes the current trial.
// It ends when no candidate fails (one-minimal) or the shrink budget does;
// a shrink that loses the anomaly keeps the last trial that failed.
func (h *hunter) shrink(ctx context.Context, i int, f Finding) (Shrink, error) {
	deadline := time.Now().Add(h.o.ShrinkBudget)
	base := f.Trial.Name
	cur := f.Trial.clone()
	cur.Name = base + "/found"
	s := Shrink{Before: Measure{Faults: f.Trial.Faults(), Records: f.Trial.Records, Seconds: f.Cell.Seconds}}
	step := 0
	try := func(what string, t Trial) (ShrinkStep, float64, error) {
		step++
		dir := filepath.Join(h.o.Out, "findings", fmt.Sprintf("%d", i), fmt.Sprintf("step-%d", step))
		began := time.Now()
		res, err := h.run(ctx, dir, h.rng.Int64N(1<<53)+1, h.o.Replays, &f.Cell.Dimensions, t)
		st := ShrinkStep{What: what, Trial: t.String(), Replays: h.o.Replays, TookS: time.Since(began).Seconds()}
		var ue *harness.UsageError
		if errors.As(err, &ue) {
			return st, 0, err
		}
		slowest := 0.0
		if err != nil {
			st.Unjudged = h.o.Replays
		}
		for _, c := range res.Runs {
			switch {
			case failsLike(c, f.Anomalies):
				st.Failed++
				slowest = max(slowest, c.DurationS)
			case c.Verdict == verdict.Unknown || c.Verdict == verdict.HarnessError:
				st.Unjudged++
			}
		}
		note := ""
		if st.Unjudged > 0 {
			note = fmt.Sprintf(", %d judged nothing", st.Unjudged)
		}
		h.say("  shrink %d.%d %s: fails %d of %d%s", i, step, what, st.Failed, st.Replays, note)
		return st, slowest, nil
	}
	first, secs, err := try("the trial as found", cur)
	if err != nil {
		return s, err
	}
	first.Kept = first.Failed >= need(h.o.Replays)
	s.Steps = append(s.Steps, first)
	s.Final, s.Failed, s.Replays, s.After = cur, first.Failed, first.Replays, measure(cur, secs)
	if !first.Kept {
		s.Stopped = fmt.Sprintf("the trial as found failed in %d of %d replays, fewer than %d: its timing did not come again, nothing to shrink from", first.Failed, first.Replays, need(h.o.Replays))
		return s, nil
	}
	// A cut that did not fail is not tried again on the smaller trials
	// after it: a fault the failure needed stays needed (delta
	// debugging's monotony), and each replay costs a cell's time.
	needed := map[string]bool{}
	for ctx.Err() == nil {
		improved := false
		for _, c := range candidates(cur) {
			if needed[c.what] {
				continue
			}
			if time.Now().After(deadline) {
				s.Stopped = fmt.Sprintf("the shrink budget (%s) ended", h.o.ShrinkBudget)
				return s, nil
			}
			if ctx.Err() != nil {
				break
			}
			c.trial.Name = fmt.Sprintf("%s/s%d", base, step+1)
			st, secs, err := try(c.what, c.trial)
			if err != nil {
				return s, err
			}
			st.Kept = st.Failed >= need(h.o.Replays)
			s.Steps = append(s.Steps, st)
			if !st.Kept {
				needed[c.what] = true
			}
			if st.Kept {
				cur = c.trial
				s.Final, s.Failed, s.Replays, s.After = cur, st.Failed, st.Replays, measure(cur, secs)
				improved = true
				break
			}
		}
		if !improved {
			break
		}
	}
	switch {
	case ctx.Err() != nil:
		s.Stopped = "interrupted"
	case s.Stopped == "":
		s.Stopped = "one-minimal: no smaller candidate failed"
	}
	return s, nil
}

func measure(t Trial, seconds float64) Measure {
	return Measure{Faults: t.Faults(), Records: t.Records, Seconds: seconds}
}

// replayEnv are the environment variables set for this hunt that change
// what runs: a replay needs them too.
func replayEnv() []string {
	var out []string
	for _, k := range []string{"SHARECHAOS_MUTANT", "SHARECHAOS_KIP1289_BROKEN"} {
		if v := os.Getenv(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// writeFinding writes finding i's shrunk trial as a scenario file and
// returns its path and the command that replays it.
func (h *hunter) writeFinding(i int, f Finding) (string, string, error) {
	t := f.Shrink.Final
	path := filepath.Join(h.o.Out, "findings", fmt.Sprintf("finding-%d.yaml", i))
	cmd := h.replayCommand(path, t.Name, f.Cell.Dimensions)
	comment := fmt.Sprintf("Found by sharechaos hunt (seed %d) on %s: %s in %s.\nShrunk from %s\nto %s;\nfails in %d of %d replays. Replay it:\n\n  %s",
		h.o.Seed, h.o.Backend, strings.Join(f.Anomalies, ", "), f.Cell.Dimensions, f.Trial, t, f.Shrink.Failed, f.Shrink.Replays, cmd)
	b, err := FileOf(comment, t)
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", "", err
	}
	if err := atomicfile.Write(path, b); err != nil {
		return "", "", fmt.Errorf("write finding %d: %w", i, err)
	}
	return path, cmd, nil
}

// replayCommand is the run that replays a shrunk trial in its finding's
// dimensions, three times.
func (h *hunter) replayCommand(file, name string, d Dimensions) string {
	o := h.o
	args := append([]string{}, h.rep.Env...)
	args = append(args, program(), "run", "--scenario-file", file, "--scenario", name, "--backend", o.Backend)
	mode := string(d.Mode)
	if d.Realization != "" {
		mode += "/" + d.Realization
	}
	args = append(args, "--mode", mode)
	if o.Brokers != 0 && o.Brokers != harness.DefaultBrokers {
		args = append(args, "--brokers", fmt.Sprint(o.Brokers))
	}
	if d.KafkaVersion != "" {
		args = append(args, "--kafka-version", d.KafkaVersion)
	}
	for _, img := range o.Backends.Docker.KafkaImages {
		args = append(args, "--kafka-image", img)
	}
	if e := o.Backends.External; e.Bootstrap != "" {
		args = append(args, "--bootstrap", e.Bootstrap)
		if e.ClientConfig != "" {
			args = append(args, "--client-config", e.ClientConfig)
		}
		if e.FaultHooks != "" {
			args = append(args, "--fault-hooks", e.FaultHooks)
		}
	}
	if d.Client != "" && d.Client != "go" {
		args = append(args, "--client", d.Client)
	}
	if d.Consumer != "" && d.Consumer != "kgo" && d.Mode != "transactional" {
		args = append(args, "--consumer", d.Consumer)
	}
	args = append(args, "--repeats", fmt.Sprint(o.Replays))
	return strings.Join(args, " ")
}

// program is the command a replay runs: sharechaos, or sharechaos-mutants
// (make mutants-cli) when a mutant of the loop is set, which only a
// mutants build carries out.
func program() string {
	if os.Getenv("SHARECHAOS_MUTANT") != "" {
		return "sharechaos-mutants"
	}
	return "sharechaos"
}
