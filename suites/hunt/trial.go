// Package hunt draws runs nobody wrote a row for, judges them with the
// suite's checker, and shrinks what fails to a scenario file anyone can
// replay (sharechaos hunt). A trial is a scenario file's row: the hunt runs
// exactly what it writes, so its findings replay with `run --scenario-file`.
package hunt

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Trial is one drawn run: a shape, a worker arm and a schedule of cluster
// faults (either may be missing), as a scenario file spells them.
type Trial struct {
	// Name is the row's name (hunt/<seed>-<n>, and /s<step> once shrunk).
	Name string `json:"name"`
	Shape
	Worker   *WorkerArm `json:"worker,omitempty"`
	Schedule *Schedule  `json:"schedule,omitempty"`
}

// Shape is a trial's load.
type Shape struct {
	Records    int   `json:"records"`
	Workers    int   `json:"workers"`
	Batch      int32 `json:"batch"`
	Partitions int32 `json:"partitions"`
}

// WorkerArm is the armed worker's fault: at a point of its loop, an action.
type WorkerArm struct {
	Point   ctp.Point  `json:"point"`
	Action  ctp.Action `json:"action"`
	FreshID bool       `json:"fresh_id,omitempty"`
}

// Schedule is cluster faults one after the other, from a fraction of the
// input on.
type Schedule struct {
	AfterLoad float64 `json:"after_load"`
	Steps     []Step  `json:"steps"`
}

// Step is one cluster fault of a schedule, by its catalog row's name, after
// a pause.
type Step struct {
	Fault string        `json:"fault"`
	After time.Duration `json:"after"`
}

// Faults is how many faults the trial injects.
func (t Trial) Faults() int {
	n := 0
	if t.Worker != nil {
		n++
	}
	if t.Schedule != nil {
		n += len(t.Schedule.Steps)
	}
	return n
}

// Mechanisms are the cluster faults' names, in order.
func (t Trial) Mechanisms() []string {
	if t.Schedule == nil {
		return nil
	}
	out := make([]string, len(t.Schedule.Steps))
	for i, s := range t.Schedule.Steps {
		out[i] = s.Fault
	}
	return out
}

// clone copies t deeply: shrinking edits copies.
func (t Trial) clone() Trial {
	if t.Worker != nil {
		w := *t.Worker
		t.Worker = &w
	}
	if t.Schedule != nil {
		s := *t.Schedule
		s.Steps = slices.Clone(s.Steps)
		t.Schedule = &s
	}
	return t
}

// String is the trial in one line, for progress and reports.
func (t Trial) String() string {
	var parts []string
	parts = append(parts, fmt.Sprintf("records=%d workers=%d batch=%d partitions=%d", t.Records, t.Workers, t.Batch, t.Partitions))
	if w := t.Worker; w != nil {
		s := fmt.Sprintf("worker %s@%s", w.Action, w.Point)
		if w.FreshID {
			s += " (fresh id)"
		}
		parts = append(parts, s)
	}
	if s := t.Schedule; s != nil {
		var steps []string
		for i, st := range s.Steps {
			if i == 0 || st.After == 0 {
				steps = append(steps, st.Fault)
			} else {
				steps = append(steps, fmt.Sprintf("+%s %s", st.After, st.Fault))
			}
		}
		parts = append(parts, fmt.Sprintf("from %.0f%% of the input: %s", s.AfterLoad*100, strings.Join(steps, ", ")))
	}
	if t.Faults() == 0 {
		parts = append(parts, "no fault")
	}
	return strings.Join(parts, "; ")
}

// The stall of a drawn stall: past the acquisition lock, as the catalog's
// lock-expiry rows hold it, so the records come back while it lasts.
const drawnStall = "lock+3s"

// drawnDeliveryTimeout bounds the produce of a fail-produce arm (as case 7's
// row does), so the cut link surfaces as an error in time.
const drawnDeliveryTimeout = 5 * time.Second

// Every mode's contract, the allowances a drawn trial gives (ORACLE.md's
// mode table): transactional nothing, in either realization; explicit
// duplicates (at-least-once); implicit duplicates and the loss of an
// aborted batch its next poll accepts. What no mode allows (a record
// redelivered after its ack, two outputs from one delivery, an aborted
// read, ...) is a finding in every mode.
var contract = map[ctp.AckMode]map[string]string{
	ctp.Explicit: {verdict.AnomalyDuplicate: "at-least-once: a fault can lose the ack after the commit (ORACLE.md, explicit)"},
	ctp.Implicit: {
		verdict.AnomalyDuplicate:        "at-least-once: a fault can lose the ack after the commit (ORACLE.md, implicit)",
		verdict.AnomalyLost:             "implicit: the next poll accepts an aborted batch (ORACLE.md)",
		verdict.AnomalyAckWithoutOutput: "implicit: the next poll accepts an aborted batch (ORACLE.md)",
	},
}

// The scenario file's spelling of a trial (scenarios.ParseFile reads it).
type (
	fileDoc struct {
		Scenarios []rowDoc `yaml:"scenarios"`
	}
	rowDoc struct {
		Name     string               `yaml:"name"`
		About    string               `yaml:"about"`
		Case     string               `yaml:"case"`
		Worker   *workerDoc           `yaml:"worker,omitempty"`
		Schedule *scheduleDoc         `yaml:"schedule,omitempty"`
		Load     loadDoc              `yaml:"load"`
		Expect   map[string]expectDoc `yaml:"expect,omitempty"`
	}
	expectDoc struct {
		Allowed       map[string]string `yaml:"allowed,omitempty"`
		NotApplicable string            `yaml:"not-applicable,omitempty"`
	}
	workerDoc struct {
		Point           string `yaml:"point"`
		Action          string `yaml:"action"`
		Stall           string `yaml:"stall,omitempty"`
		FreshID         bool   `yaml:"fresh-id,omitempty"`
		DeliveryTimeout string `yaml:"delivery-timeout,omitempty"`
	}
	scheduleDoc struct {
		AfterLoad float64   `yaml:"after-load"`
		Steps     []stepDoc `yaml:"steps"`
	}
	stepDoc struct {
		Fault string `yaml:"fault"`
		After string `yaml:"after,omitempty"`
	}
	loadDoc struct {
		Records    int   `yaml:"records"`
		Workers    int   `yaml:"workers"`
		Batch      int32 `yaml:"batch"`
		Partitions int32 `yaml:"partitions"`
	}
)

func (t Trial) row() rowDoc {
	r := rowDoc{Name: t.Name, About: "drawn by sharechaos hunt: " + t.String(), Case: "hunt",
		Load:   loadDoc{Records: t.Records, Workers: t.Workers, Batch: t.Batch, Partitions: t.Partitions},
		Expect: map[string]expectDoc{}}
	if w := t.Worker; w != nil {
		d := &workerDoc{Point: string(w.Point), Action: string(w.Action), FreshID: w.FreshID}
		if w.Action.Stalls() {
			d.Stall = drawnStall
		}
		if w.Action == ctp.ActionFailProduce {
			d.DeliveryTimeout = drawnDeliveryTimeout.String()
		}
		r.Worker = d
	}
	if s := t.Schedule; s != nil {
		d := &scheduleDoc{AfterLoad: s.AfterLoad}
		for _, st := range s.Steps {
			sd := stepDoc{Fault: st.Fault}
			if st.After > 0 {
				sd.After = st.After.String()
			}
			d.Steps = append(d.Steps, sd)
		}
		r.Schedule = d
	}
	for _, m := range ctp.Modes {
		if a := contract[m]; len(a) > 0 {
			r.Expect[string(m)] = expectDoc{Allowed: a}
		}
	}
	if t.Worker != nil && t.Worker.Point == ctp.PointAfterAcks {
		// The point never comes where the acks stay out of the
		// transaction: N/A there, as the catalog's case 3 is.
		for _, m := range []ctp.AckMode{ctp.Explicit, ctp.Implicit} {
			r.Expect[string(m)] = expectDoc{NotApplicable: "the arm's point after-acks exists only where the acks go into the transaction (ORACLE.md case 3: n/a)"}
		}
	}
	return r
}

// FileOf is the scenario file of trials, the YAML `run --scenario-file`
// reads, with a comment on top.
func FileOf(comment string, trials ...Trial) ([]byte, error) {
	doc := fileDoc{}
	for _, t := range trials {
		doc.Scenarios = append(doc.Scenarios, t.row())
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var head strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(comment), "\n") {
		head.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	return append([]byte(head.String()), b...), nil
}

// catalogOf parses trials the way a replay will (their scenario file) and
// returns the catalog that holds them.
func catalogOf(name string, trials ...Trial) (scenarios.Catalog, []byte, error) {
	b, err := FileOf("", trials...)
	if err != nil {
		return scenarios.Catalog{}, nil, err
	}
	f, err := scenarios.ParseFile(name, b)
	if err != nil {
		return scenarios.Catalog{}, nil, fmt.Errorf("a drawn trial does not parse (the hunt's own bug): %w", err)
	}
	c, err := scenarios.WithExtra(f.Scenarios, nil)
	return c, b, err
}
