//go:build mutants

package hunt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/suites"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestMain lets the test binary be its own worker (a mutants build: the
// workers run the mutant SHARECHAOS_MUTANT names).
func TestMain(m *testing.M) {
	if code, ok := suites.RunChildRole(os.Args[1:]); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// huntedMutant is one broken system the hunt must find without being told
// its row: a mutant of the loop (in the Go worker or the Java one), or the
// reference broker's deliberate defect.
type huntedMutant struct {
	mutant ctp.Mutant
	client string
	broken string
}

func (m huntedMutant) name() string {
	if m.broken != "" {
		return "broker:" + m.broken
	}
	if m.client != "" {
		return string(m.mutant) + "~" + m.client
	}
	return string(m.mutant)
}

// huntedMutants are make mutants' broken systems.
func huntedMutants() []huntedMutant {
	var out []huntedMutant
	for _, m := range ctp.Mutants() {
		out = append(out, huntedMutant{mutant: m})
	}
	return append(out, huntedMutant{mutant: ctp.MutantAckBeforeCommit, client: workerset.ClientJava},
		huntedMutant{broken: "stage-first-partition-only"})
}

// TestHuntFindsMutants hunts each broken system on the embedded backend
// for SHARECHAOS_HUNT_BUDGET (default 5m), SHARECHAOS_HUNT_TRIALS trials a
// round (default the hunt's), and wants a finding shrunk to a
// scenario file that fails in 2 of 3 replays and parses; it prints the
// table. SHARECHAOS_MUTANTS=a,b picks some. make hunt-mutants runs every
// one; make mutants runs produce-twice on a short budget.
func TestHuntFindsMutants(t *testing.T) {
	budget := 5 * time.Minute
	if v := os.Getenv("SHARECHAOS_HUNT_BUDGET"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("SHARECHAOS_HUNT_BUDGET: %v", err)
		}
		budget = d
	}
	trials := 0
	if v := os.Getenv("SHARECHAOS_HUNT_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SHARECHAOS_HUNT_TRIALS %q: want a count of trials", v)
		}
		trials = n
	}
	only := os.Getenv("SHARECHAOS_MUTANTS")
	// The hunts' directories outlive a failed test, so a missed mutant's
	// trials can be read.
	base, err := os.MkdirTemp("", "sharechaos-hunt-mutants-")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if !t.Failed() {
			_ = os.RemoveAll(base)
		}
	}()
	type row struct {
		m       huntedMutant
		rep     Report
		err     error
		took    time.Duration
		problem string
		found   int // the first certain finding, -1: none
	}
	var rows []row
	for i, m := range huntedMutants() {
		if only != "" && !strings.Contains(","+only+",", ","+m.name()+",") {
			continue
		}
		t.Setenv(ctp.MutantEnv, string(m.mutant))
		t.Setenv("SHARECHAOS_KIP1289_BROKEN", m.broken)
		o := Options{Budget: budget, ShrinkBudget: budget, Findings: 1, TrialsPerRound: trials}
		o.Backend, o.Seed = "embedded", int64(1289+i)
		o.Out = filepath.Join(base, strings.NewReplacer(":", "-", "~", "-").Replace(m.name()))
		if m.client != "" {
			o.Clients = []string{m.client}
		}
		o.Progress = os.Stdout
		began := time.Now()
		rep, err := Run(context.Background(), o)
		r := row{m: m, rep: rep, err: err, took: time.Since(began), found: -1}
		for i, f := range rep.Findings {
			if f.certain() {
				r.found = i
				break
			}
		}
		switch {
		case err != nil:
			r.problem = err.Error()
		case len(rep.Findings) == 0:
			r.problem = fmt.Sprintf("not found in %s (%d trials)", budget, rep.Coverage.Trials)
		case r.found < 0:
			r.problem = fmt.Sprintf("found %d time(s), but no finding's replays failed 2 of 3 times", len(rep.Findings))
		default:
			if _, err := scenarios.LoadFile(rep.Findings[r.found].File); err != nil {
				r.problem = "its scenario file: " + err.Error()
			}
		}
		rows = append(rows, r)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tTRIALS\tFOUND IN\tANOMALIES\tSHRUNK TO\tREPLAYS\tTOOK")
	for _, r := range rows {
		found, anomalies, shrunk, replays := "-", "-", "-", "-"
		if r.found >= 0 {
			f := r.rep.Findings[r.found]
			found, anomalies = f.Trial.Name+" "+f.Cell.Dimensions.String(), strings.Join(f.Anomalies, ",")
			if s := f.Shrink; s != nil {
				shrunk, replays = s.Final.String(), fmt.Sprintf("%d/%d", s.Failed, s.Replays)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.m.name(), r.rep.Coverage.Trials, found, anomalies, shrunk, replays, r.took.Round(time.Second))
	}
	tw.Flush()
	for _, r := range rows {
		if r.problem != "" {
			t.Errorf("%s: %s (hunt in %s)", r.m.name(), r.problem, r.rep.Dir)
		}
	}
}
