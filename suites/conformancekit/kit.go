// Package conformancekit runs KIP-1289's conformance cases
// (workloads/kip1289/conformance) as a kit any implementation can be checked
// with: against the reference broker, the patched Kafka image, or a cluster
// it did not start (--backend external, its failovers through the fault
// hooks), each case judged PASS, ANOMALY (the broker did not do what the case
// pins down), N/A (a failover or setting the broker cannot give, with why)
// or HARNESS-ERROR (the kit could not set the case up), with the requests
// it sent and the broker's answers.
package conformancekit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/conformance"
)

// Options are what a kit run is given.
type Options struct {
	// Backend is embedded (the reference broker), docker (an image with
	// KIP-1289 built in) or external (a cluster given by External).
	Backend string
	// KafkaImage is the docker backend's image (default: ours, with KIP-1289).
	KafkaImage string
	External   harness.ExternalFlags
	// PendingLock is the external broker's pending-lock policy, as its
	// operator set it (cases that need the other one are N/A).
	PendingLock string
	Keys        kip1289.APIKeys
	// Cases are the names to run (empty: every case).
	Cases []string
	// Out is the report directory.
	Out string
	// CaseTimeout bounds one case.
	CaseTimeout time.Duration
	Log         *slog.Logger
	// Progress gets one line per case as it ends.
	Progress io.Writer
}

// CaseResult is one case's verdict.
type CaseResult struct {
	Name    string          `json:"name"`
	Verdict verdict.Verdict `json:"verdict"`
	Reason  string          `json:"reason,omitempty"`
	// Differs names the finding where the implementations answer a step
	// differently, each asserted on its own.
	Differs   string                 `json:"differs,omitempty"`
	Settings  string                 `json:"settings"`
	DurationS float64                `json:"duration_s"`
	Exchanges []conformance.Exchange `json:"exchanges,omitempty"`
}

// Report is a kit run.
type Report struct {
	Verdict     verdict.Verdict  `json:"verdict"`
	ExitCode    int              `json:"exit_code"`
	Backend     string           `json:"backend"`
	Broker      string           `json:"broker"`
	Kind        conformance.Kind `json:"kind,omitempty"`
	Started     time.Time        `json:"started"`
	DurationS   float64          `json:"duration_s"`
	Interrupted bool             `json:"interrupted,omitempty"`
	Cases       []CaseResult     `json:"cases"`
}

// Check validates o before anything starts: a usage error names what is
// wrong.
func (o *Options) Check() error {
	switch o.Backend {
	case "embedded", "docker", "external":
	default:
		return harness.Usagef("--backend %q: want embedded (the reference broker), docker (an image with KIP-1289) or external", o.Backend)
	}
	if o.Backend != "docker" && o.KafkaImage != "" {
		return harness.Usagef("--kafka-image goes with --backend docker")
	}
	if o.Backend != "external" && o.External != (harness.ExternalFlags{}) {
		return harness.Usagef("--bootstrap, --client-config and --fault-hooks go with --backend external")
	}
	if o.PendingLock != conformance.PolicyExpire && o.PendingLock != conformance.PolicyHold {
		return harness.Usagef("--kip1289-pending-lock %q: want expire or hold", o.PendingLock)
	}
	if err := o.Keys.Validate(); err != nil {
		return harness.Usagef("--kip1289-keys: %v", err)
	}
	for _, name := range o.Cases {
		if !slices.ContainsFunc(conformance.Cases, func(c conformance.Case) bool { return c.Name == name }) {
			return harness.Usagef("--case %q: no such case (sharechaos conformance --list names them)", name)
		}
	}
	return nil
}

// Run runs the kit's cases against the chosen broker and returns the report
// (written to o.Out by the caller). A usage error (a missing image, a broker
// without KIP-1289) comes back before any case ran.
func Run(ctx context.Context, o Options) (Report, error) {
	rep := Report{Backend: o.Backend, Started: time.Now()}
	if err := o.Check(); err != nil {
		return rep, err
	}
	tg, err := newTarget(ctx, o)
	if err != nil {
		return rep, err
	}
	defer tg.close()
	rep.Broker = tg.describe()
	for _, c := range conformance.Cases {
		if len(o.Cases) > 0 && !slices.Contains(o.Cases, c.Name) {
			continue
		}
		if ctx.Err() != nil {
			rep.Interrupted = true
			break
		}
		r, err := runCase(ctx, o, tg, c)
		if err != nil {
			// A broker of the kit's own that turned out not to speak
			// KIP-1289 (--kafka-image of a stock build): nothing is judged.
			return rep, err
		}
		if k := tg.kind(); k != "" {
			rep.Kind = k
		}
		rep.Cases = append(rep.Cases, r)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%-13s %s  (%.1fs)%s\n", r.Verdict, r.Name, r.DurationS, reasonSuffix(r.Reason))
		}
	}
	rep.DurationS = time.Since(rep.Started).Seconds()
	var vs []verdict.Verdict
	for _, r := range rep.Cases {
		vs = append(vs, r.Verdict)
	}
	rep.Verdict = verdict.Worst(vs...)
	if rep.Interrupted && rep.Verdict == verdict.Pass {
		rep.Verdict = verdict.Unknown
	}
	rep.ExitCode = rep.Verdict.ExitCode()
	return rep, nil
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

// runCase runs one case on the broker its settings need.
func runCase(ctx context.Context, o Options, tg target, c conformance.Case) (r CaseResult, usage error) {
	s := c.Settings
	if s.Policy == "" {
		s.Policy = conformance.PolicyExpire
	}
	r = CaseResult{Name: c.Name, Differs: c.Differs, Settings: settingsWords(s)}
	began := time.Now()
	defer func() { r.DurationS = time.Since(began).Seconds() }()
	b, na, err := tg.broker(ctx, s)
	var ue *harness.UsageError
	switch {
	case errors.As(err, &ue):
		return r, err
	case err != nil:
		r.Verdict, r.Reason = verdict.HarnessError, "start the broker: "+err.Error()
		return r, nil
	case na != "":
		r.Verdict, r.Reason = verdict.NA, na
		return r, nil
	}
	if why := b.Missing(c); why != "" {
		r.Verdict, r.Reason = verdict.NA, why
		return r, nil
	}
	cctx, cancel := context.WithTimeout(ctx, o.CaseTimeout)
	defer cancel()
	e, err := conformance.NewEnv(cctx, b, c.Name)
	if err != nil {
		r.Verdict, r.Reason = verdict.HarnessError, err.Error()
		return r, nil
	}
	defer e.Close()
	err = c.Run(cctx, e)
	r.Exchanges = e.Exchanges()
	switch {
	case err == nil:
		r.Verdict = verdict.Pass
	case ctx.Err() != nil:
		r.Verdict, r.Reason = verdict.Unknown, "interrupted: "+err.Error()
	case errors.Is(err, conformance.ErrNotOneBroker):
		r.Verdict, r.Reason = verdict.NA, err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		r.Verdict, r.Reason = verdict.Anomaly, fmt.Sprintf("not done within %v: %v", o.CaseTimeout, err)
	default:
		r.Verdict, r.Reason = verdict.Anomaly, err.Error()
	}
	return r, nil
}

func settingsWords(s conformance.Settings) string {
	w := []string{"pending lock " + s.Policy, "record lock " + s.Lock.String()}
	if s.Brokers > 1 {
		w = append(w, fmt.Sprintf("%d brokers", s.Brokers))
	}
	return strings.Join(w, ", ")
}
