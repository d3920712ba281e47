package conformancekit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/kip1289/conformance"
)

// stubTarget is a target at the unit's own edge: it answers every broker
// request with the same outcome.
type stubTarget struct {
	b   conformance.Broker
	na  string
	err error
}

func (s stubTarget) broker(context.Context, conformance.Settings) (conformance.Broker, string, error) {
	return s.b, s.na, s.err
}
func (stubTarget) describe() string       { return "stub" }
func (stubTarget) kind() conformance.Kind { return "" }
func (stubTarget) close()                 {}

// TestRunCaseOutcomes: a broker that turns out not to speak KIP-1289 stops
// the run as a usage error (nothing judged); one that does not start is the
// case's HARNESS-ERROR; a setting the target cannot give, or a failover the
// broker lacks, is N/A with the reason.
func TestRunCaseOutcomes(t *testing.T) {
	o := Options{CaseTimeout: time.Second}
	first := conformance.Cases[0]
	var kill conformance.Case
	for _, c := range conformance.Cases {
		if len(c.Needs) > 0 && c.Needs[0] == conformance.NeedKill {
			kill = c
		}
	}
	usage := harness.Usagef("missing TxnShareAcknowledge")
	if _, err := runCase(context.Background(), o, stubTarget{err: usage}, first); !errors.Is(err, usage) {
		t.Errorf("a broker without the APIs: %v, want the usage error", err)
	}
	r, err := runCase(context.Background(), o, stubTarget{err: errors.New("no engine")}, first)
	if err != nil || r.Verdict != verdict.HarnessError {
		t.Errorf("a broker that did not start: %+v, %v", r, err)
	}
	r, _ = runCase(context.Background(), o, stubTarget{na: "needs 3 brokers"}, first)
	if r.Verdict != verdict.NA || r.Reason != "needs 3 brokers" {
		t.Errorf("a setting the target lacks: %+v", r)
	}
	b := conformance.Broker{Kind: conformance.Kafka, Lacks: map[conformance.Need]string{conformance.NeedKill: "no kill hook"}}
	r, _ = runCase(context.Background(), o, stubTarget{b: b}, kill)
	if r.Verdict != verdict.NA || r.Reason != "needs a leader kill: no kill hook" {
		t.Errorf("a failover the broker lacks: %+v", r)
	}
}
