package hunt

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// behaviour is a fake system: for a trial, how many of n replays fail and
// with which anomaly, and the verdict of the others.
type behaviour func(t Trial, n int) (failed int, anomaly string, others verdict.Verdict)

// fakeHunter is a hunter whose backend is b: the hunt's and the shrink's
// logic, judged without brokers (the unit's own edge; the real runs are
// hunt_embedded_test.go's).
func fakeHunter(t *testing.T, b behaviour) *hunter {
	t.Helper()
	o := Options{Budget: time.Minute, ShrinkBudget: time.Hour, MaxFaults: 3, Replays: 3, TrialsPerRound: 2, Findings: 1, Menu: DefaultMenu()}
	o.Modes = []ctp.AckMode{ctp.Explicit}
	o.Seed, o.Out, o.Backend, o.Progress = 5, t.TempDir(), "fake", io.Discard
	h := &hunter{o: o, rng: rand.New(rand.NewPCG(5, 1)), space: Space{Menu: o.Menu, MaxFaults: 3},
		rep: &Report{Seed: 5, Backend: "fake", Started: time.Now(), Menu: o.Menu, Dropped: map[string]string{}, Dir: o.Out},
		say: t.Logf}
	h.run = func(_ context.Context, _ string, _ int64, repeats int, only *Dimensions, trials ...Trial) (result.Result, error) {
		var res result.Result
		for _, tr := range trials {
			failed, anomaly, others := b(tr, repeats)
			for i := 0; i < repeats; i++ {
				c := result.Cell{Scenario: tr.Name, Mode: string(ctp.Explicit), Verdict: others, DurationS: float64(tr.Records) / 100}
				if i < failed {
					c.Verdict = verdict.Anomaly
					c.Anomalies = map[string]verdict.Found{anomaly: {Count: 1}}
				}
				res.Runs = append(res.Runs, c)
			}
		}
		return res, nil
	}
	return h
}

var bigTrial = Trial{Name: "hunt/5-1", Shape: Shape{Records: 1600, Workers: 3, Batch: 5, Partitions: 4},
	Worker:   &WorkerArm{Point: ctp.PointAfterSend, Action: ctp.ActionKill, FreshID: true},
	Schedule: &Schedule{AfterLoad: 0.2, Steps: []Step{{Fault: "broker-kill"}, {Fault: "slow-network", After: 3 * time.Second}, {Fault: "partition", After: 2 * time.Second}}}}

func hasStep(t Trial, fault string) bool {
	for _, m := range t.Mechanisms() {
		if m == fault {
			return true
		}
	}
	return false
}

func finding(h *hunter, tr Trial, anomaly string) Finding {
	return Finding{Trial: tr, Cell: CellOutcome{Dimensions: Dimensions{Mode: ctp.Explicit}, Verdict: verdict.Anomaly, Anomalies: []string{anomaly}, Seconds: 16}, Anomalies: []string{anomaly}}
}

// A failure that needs slow-network and 400 records shrinks to exactly
// that: one fault, 400 records, the smallest shape.
func TestShrinkFindsTheOneMinimalTrial(t *testing.T) {
	h := fakeHunter(t, func(tr Trial, n int) (int, string, verdict.Verdict) {
		if hasStep(tr, "slow-network") && tr.Records >= 400 {
			return n, verdict.AnomalyRedeliveredAfterAck, verdict.Pass
		}
		return 0, "", verdict.Pass
	})
	s, err := h.shrink(context.Background(), 1, finding(h, bigTrial, verdict.AnomalyRedeliveredAfterAck))
	if err != nil {
		t.Fatal(err)
	}
	f := s.Final
	if f.Worker != nil || f.Faults() != 1 || !hasStep(f, "slow-network") || f.Schedule.Steps[0].After != 0 {
		t.Errorf("shrunk to %s, want slow-network alone", f)
	}
	if f.Records != 400 || f.Workers != 1 || f.Batch != 1 || f.Partitions != 1 {
		t.Errorf("shrunk to %s, want 400 records on 1 worker, batch 1, 1 partition", f)
	}
	if s.Failed != 3 || s.Before.Faults != 4 || s.After.Faults != 1 || s.Before.Records != 1600 || !strings.HasPrefix(s.Stopped, "one-minimal") {
		t.Errorf("shrink %+v", s)
	}
}

// A finding whose replays do not fail two thirds of the time is kept as
// found, unshrunk, and says so.
func TestShrinkOfAFlakeKeepsTheTrialAsFound(t *testing.T) {
	h := fakeHunter(t, func(tr Trial, n int) (int, string, verdict.Verdict) {
		return 1, verdict.AnomalyDuplicateInOneDelivery, verdict.Pass
	})
	s, err := h.shrink(context.Background(), 1, finding(h, bigTrial, verdict.AnomalyDuplicateInOneDelivery))
	if err != nil {
		t.Fatal(err)
	}
	if s.Failed != 1 || len(s.Steps) != 1 || s.Final.String() != bigTrial.String() || !strings.Contains(s.Stopped, "did not come again") {
		t.Errorf("shrink %+v", s)
	}
}

// A candidate that fails with another anomaly is another bug: not kept.
func TestShrinkKeepsTheSameFailure(t *testing.T) {
	h := fakeHunter(t, func(tr Trial, n int) (int, string, verdict.Verdict) {
		if tr.Worker == nil {
			return n, verdict.AnomalyLost, verdict.Pass
		}
		return n, verdict.AnomalyDuplicateNeverAcked, verdict.Pass
	})
	s, err := h.shrink(context.Background(), 1, finding(h, bigTrial, verdict.AnomalyDuplicateNeverAcked))
	if err != nil {
		t.Fatal(err)
	}
	if s.Final.Worker == nil {
		t.Errorf("shrunk to %s: dropped the arm, whose loss is another failure", s.Final)
	}
}

// UNKNOWN replays judge nothing: they neither keep a candidate nor count
// against the shrink budget's result.
func TestShrinkCountsUnjudgedReplays(t *testing.T) {
	h := fakeHunter(t, func(tr Trial, n int) (int, string, verdict.Verdict) {
		if tr.Records < 1600 {
			return 0, "", verdict.Unknown
		}
		return n, verdict.AnomalyAbortedRead, verdict.Pass
	})
	s, err := h.shrink(context.Background(), 1, finding(h, bigTrial, verdict.AnomalyAbortedRead))
	if err != nil {
		t.Fatal(err)
	}
	if s.Final.Records != 1600 {
		t.Errorf("shrunk to %s on UNKNOWN replays", s.Final)
	}
	unjudged := 0
	for _, st := range s.Steps {
		unjudged += st.Unjudged
	}
	if unjudged == 0 {
		t.Error("no step counted its UNKNOWN replays")
	}
}

// A hunt on a system that fails where a zombie is fenced finds it, shrinks
// it and writes a scenario file the suite reads, with its command; it exits
// ANOMALY.
func TestHuntFindsShrinksAndWritesAScenarioFile(t *testing.T) {
	h := fakeHunter(t, func(tr Trial, n int) (int, string, verdict.Verdict) {
		if tr.Worker != nil && tr.Worker.Action == ctp.ActionStop {
			return n, verdict.AnomalyDuplicateInOneDelivery, verdict.Pass
		}
		return 0, "", verdict.Pass
	})
	h.o.Budget = time.Hour
	rep, err := h.start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode != verdict.ExitAnomaly || len(rep.Findings) == 0 || rep.Findings[0].File == "" {
		t.Fatalf("exit %d, findings %+v", rep.ExitCode, rep.Findings)
	}
	f := rep.Findings[0]
	file, err := scenarios.LoadFile(f.File)
	if err != nil {
		t.Fatalf("the finding's scenario file: %v", err)
	}
	if s := file.Scenarios[0]; s.Worker == nil || s.Worker.Action != ctp.ActionStop || s.Load.Records != minRecords {
		t.Errorf("the file's row %+v: want the stop, on %d records", s, minRecords)
	}
	if !strings.Contains(f.Command, "--scenario-file "+f.File) || !strings.Contains(f.Command, "--mode explicit") {
		t.Errorf("replay %q", f.Command)
	}
	for _, name := range []string{"hunt.json", "hunt.md"} {
		if _, err := os.Stat(h.o.Out + "/" + name); err != nil {
			t.Error(err)
		}
	}
}

// A hunt on a system that never fails finds nothing and exits 0 once its
// budget ends; its UNKNOWN cells are listed, not findings.
func TestHuntOnACorrectSystemFindsNothing(t *testing.T) {
	h := fakeHunter(t, func(tr Trial, n int) (int, string, verdict.Verdict) {
		if tr.Worker != nil && tr.Worker.Action == ctp.ActionStall {
			return 0, "", verdict.Unknown
		}
		return 0, "", verdict.Pass
	})
	h.o.Budget = 50 * time.Millisecond
	rep, err := h.start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode != verdict.ExitPass || len(rep.Findings) != 0 || rep.Coverage.Trials == 0 {
		t.Fatalf("exit %d, %d findings, %d trials", rep.ExitCode, len(rep.Findings), rep.Coverage.Trials)
	}
}

// A backend that fails every round stops the hunt after three, exit 4,
// with no finding.
func TestHuntStopsWhenTheBackendFailsEveryRound(t *testing.T) {
	h := fakeHunter(t, func(tr Trial, n int) (int, string, verdict.Verdict) {
		return 0, "", verdict.HarnessError
	})
	h.o.Budget = time.Hour
	rep, err := h.start(context.Background())
	if err == nil || rep.ExitCode != verdict.ExitHarnessError || len(rep.Findings) != 0 || rep.Coverage.Trials != 0 {
		t.Fatalf("err %v, exit %d, %d findings, %d trials", err, rep.ExitCode, len(rep.Findings), rep.Coverage.Trials)
	}
}

// A finding whose replays fail too seldom does not end the hunt: it goes
// on to one it can make certain.
func TestAFlakyFindingDoesNotEndTheHunt(t *testing.T) {
	h := fakeHunter(t, func(tr Trial, n int) (int, string, verdict.Verdict) {
		switch {
		case tr.Worker != nil && tr.Worker.Action == ctp.ActionStall:
			return min(1, n), verdict.AnomalyDuplicateUnexplained, verdict.Pass
		case tr.Worker != nil && tr.Worker.Action == ctp.ActionStop:
			return n, verdict.AnomalyDuplicateInOneDelivery, verdict.Pass
		}
		return 0, "", verdict.Pass
	})
	h.o.Budget = time.Hour
	rep, err := h.start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	last := rep.Findings[len(rep.Findings)-1]
	if !last.certain() || last.Anomalies[0] != verdict.AnomalyDuplicateInOneDelivery {
		t.Fatalf("the hunt ended on %+v, want the certain stop finding", last)
	}
	flaky := 0
	for _, f := range rep.Findings {
		if f.Shrink != nil && !f.certain() {
			flaky++
		}
	}
	if flaky == 0 {
		t.Error("no flaky finding recorded before the certain one (the deck deals stalls before the second stop)")
	}
}
