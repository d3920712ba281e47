package scenarios

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/faults"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// File is what a scenario file defines (--scenario-file): rows written as
// the catalog's are, profiles over any rows, and thresholds for the run.
// docs/QUALIFICATION.md and examples/scenarios/ show the format.
type File struct {
	Scenarios  []Scenario
	Profiles   []Profile
	Thresholds []string
}

// LoadFile reads and checks a scenario file. Every error names the file,
// the line and the field.
func LoadFile(path string) (File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return File{}, fmt.Errorf("read scenario file: %w", err)
	}
	return ParseFile(path, b)
}

// at is a value with the line it was written on.
type at[T any] struct {
	V    T
	Line int
}

func (a *at[T]) UnmarshalYAML(n *yaml.Node) error {
	a.Line = n.Line
	return n.Decode(&a.V)
}

type fileDoc struct {
	Scenarios  []scenarioDoc `yaml:"scenarios"`
	Profiles   []profileDoc  `yaml:"profiles"`
	Thresholds []at[string]  `yaml:"thresholds"`
}

type scenarioDoc struct {
	Name     at[string]               `yaml:"name"`
	About    at[string]               `yaml:"about"`
	Case     at[string]               `yaml:"case"`
	Worker   *workerDoc               `yaml:"worker"`
	Cluster  *clusterDoc              `yaml:"cluster"`
	Schedule *scheduleDoc             `yaml:"schedule"`
	Load     loadDoc                  `yaml:"load"`
	Expect   map[string]at[expectDoc] `yaml:"expect"`
}

type workerDoc struct {
	Point           at[string]        `yaml:"point"`
	Action          at[string]        `yaml:"action"`
	Stall           at[string]        `yaml:"stall"`
	FreshID         bool              `yaml:"fresh-id"`
	DeliveryTimeout at[time.Duration] `yaml:"delivery-timeout"`
}

type clusterDoc struct {
	Fault     at[string]  `yaml:"fault"`
	AfterLoad at[float64] `yaml:"after-load"`
}

type scheduleDoc struct {
	AfterLoad at[float64] `yaml:"after-load"`
	Steps     []stepDoc   `yaml:"steps"`
}

type stepDoc struct {
	Fault at[string]        `yaml:"fault"`
	After at[time.Duration] `yaml:"after"`
}

type loadDoc struct {
	Records    at[int]           `yaml:"records"`
	Workers    at[int]           `yaml:"workers"`
	Batch      at[int32]         `yaml:"batch"`
	Partitions at[int32]         `yaml:"partitions"`
	Lock       at[time.Duration] `yaml:"lock"`
}

type expectDoc struct {
	Allowed       map[string]string `yaml:"allowed"`
	NotApplicable string            `yaml:"not-applicable"`
}

type profileDoc struct {
	Name       at[string]   `yaml:"name"`
	About      string       `yaml:"about"`
	Scenarios  []at[string] `yaml:"scenarios"`
	Repeats    at[int]      `yaml:"repeats"`
	Thresholds []at[string] `yaml:"thresholds"`
}

var (
	nameRe = regexp.MustCompile(`^[a-z0-9]+(?:[-/][a-z0-9]+)*$`)
	// stallRe is "lock+3s": the catalog's stall past the cell's lock.
	stallRe = regexp.MustCompile(`^lock\s*\+\s*(\S+)$`)
)

// ParseFile checks a scenario file's bytes; name is its path, for errors.
func ParseFile(name string, data []byte) (File, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return File{}, fmt.Errorf("%s: %w", name, err)
	}
	p := fileParser{name: name}
	p.checkFields(&root, reflect.TypeOf(fileDoc{}), "")
	if p.err != nil {
		return File{}, p.err
	}
	var doc fileDoc
	if err := root.Decode(&doc); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return File{}, fmt.Errorf("%s: %s", name, strings.Join(te.Errors, "; "))
		}
		return File{}, fmt.Errorf("%s: %w", name, err)
	}
	var f File
	for i, sd := range doc.Scenarios {
		if s, ok := p.scenario(fmt.Sprintf("scenarios[%d]", i), sd); ok {
			if slices.ContainsFunc(f.Scenarios, func(o Scenario) bool { return o.Name == s.Name }) {
				p.fail(sd.Name.Line, fmt.Sprintf("scenarios[%d].name", i), "%q is defined twice", s.Name)
			}
			f.Scenarios = append(f.Scenarios, s)
		}
	}
	for i, pd := range doc.Profiles {
		f.Profiles = append(f.Profiles, p.profile(fmt.Sprintf("profiles[%d]", i), pd, f.Scenarios))
	}
	for i, t := range doc.Thresholds {
		p.threshold(t, fmt.Sprintf("thresholds[%d]", i))
		f.Thresholds = append(f.Thresholds, t.V)
	}
	if len(f.Scenarios) == 0 && len(f.Profiles) == 0 && len(f.Thresholds) == 0 && p.err == nil {
		return File{}, fmt.Errorf("%s: no scenarios, profiles or thresholds", name)
	}
	if p.err != nil {
		return File{}, p.err
	}
	return f, nil
}

// fileParser collects the errors of one file, each as file:line: field: what.
type fileParser struct {
	name string
	err  error
}

func (p *fileParser) fail(line int, field, format string, args ...any) {
	p.err = errors.Join(p.err, fmt.Errorf("%s:%d: %s: %s", p.name, line, field, fmt.Sprintf(format, args...)))
}

func (p *fileParser) scenario(field string, d scenarioDoc) (Scenario, bool) {
	before := p.err
	s := Scenario{Name: d.Name.V, About: d.About.V, Case: d.Case.V}
	switch {
	case s.Name == "":
		p.fail(d.Name.Line, field+".name", "missing")
	case !nameRe.MatchString(s.Name):
		p.fail(d.Name.Line, field+".name", "%q: want kebab-case words, /-separated (like mine/broker-kill-early)", s.Name)
	case slices.Contains(Names(), s.Name):
		p.fail(d.Name.Line, field+".name", "%q is a built-in scenario (a file adds rows; it cannot redefine one)", s.Name)
	}
	if s.About == "" {
		p.fail(d.Name.Line, field+".about", "missing: one line for --help and the reports")
	}
	if s.Case == "" {
		s.Case = "file"
	}
	if d.Cluster != nil && d.Schedule != nil {
		p.fail(d.Name.Line, field, "cluster and schedule exclude each other: a schedule is a list of cluster faults")
	}
	if d.Worker != nil {
		s.Worker = p.worker(field+".worker", *d.Worker)
		// A worker arm beside cluster faults fires in its own worker; the
		// zombie's choreography is the orchestrator's, and a cell drives
		// one injection (the cluster fault's).
		if s.Worker.Conduct != nil && (d.Cluster != nil || d.Schedule != nil) {
			p.fail(d.Worker.Action.Line, field+".worker.action", "stop (a zombie, fenced) is driven by the orchestrator and cannot run beside cluster faults")
		}
	}
	if d.Cluster != nil {
		m := p.mechanism(field+".cluster.fault", d.Cluster.Fault)
		s.Cluster = &ClusterFault{Mechanism: m, AfterLoad: p.fraction(field+".cluster.after-load", d.Cluster.AfterLoad)}
	}
	if d.Schedule != nil {
		s.Cluster = p.schedule(field+".schedule", *d.Schedule)
	}
	s.Load = p.load(field+".load", d.Load)
	s.Expect = map[ctp.AckMode]Expectation{}
	for mode, e := range d.Expect {
		f := field + ".expect." + mode
		if !slices.Contains(ctp.Modes, ctp.AckMode(mode)) {
			p.fail(e.Line, f, "unknown mode %q (want %v)", mode, ctp.Modes)
			continue
		}
		for a, why := range e.V.Allowed {
			switch {
			case !slices.Contains(verdict.Allowable, a):
				p.fail(e.Line, f+".allowed."+a, "%q is not an anomaly a mode can be allowed (want one of %s)", a, strings.Join(verdict.Allowable, ", "))
			case strings.TrimSpace(why) == "":
				p.fail(e.Line, f+".allowed."+a, "missing the reason the mode allows it")
			}
		}
		s.Expect[ctp.AckMode(mode)] = Expectation{Allowed: e.V.Allowed, NotApplicable: e.V.NotApplicable}
	}
	return s, p.err == before
}

func (p *fileParser) worker(field string, d workerDoc) *WorkerFault {
	w := &WorkerFault{Point: ctp.Point(d.Point.V), Action: ctp.Action(d.Action.V), FreshID: d.FreshID, DeliveryTimeout: d.DeliveryTimeout.V}
	if !slices.Contains(ctp.Points, w.Point) {
		p.fail(d.Point.Line, field+".point", "unknown point %q (want one of %v)", d.Point.V, ctp.Points)
	}
	if !slices.Contains(ctp.Actions, w.Action) {
		p.fail(d.Action.Line, field+".action", "unknown action %q (want one of %v)", d.Action.V, ctp.Actions)
	} else if ok, at := w.Action.ActsAt(w.Point); !ok && slices.Contains(ctp.Points, w.Point) {
		p.fail(d.Action.Line, field+".action", "the loop does not %s at %s (only at %v)", w.Action, w.Point, at)
	}
	if w.Action == ctp.ActionStop {
		// A stopped worker is a zombie only with the orchestrator's half:
		// the replacement that fences it, then the resume.
		w.Conduct = faults.Zombie
	}
	switch stall := strings.TrimSpace(d.Stall.V); {
	case w.Action.Stalls() && stall == "":
		p.fail(d.Action.Line, field+".stall", "action %s wants a stall (a duration, or lock+3s)", w.Action)
	case stall == "":
	case stallRe.MatchString(stall):
		past, err := time.ParseDuration(stallRe.FindStringSubmatch(stall)[1])
		if err != nil {
			p.fail(d.Stall.Line, field+".stall", "%q: %v", stall, err)
		}
		w.Stall = func(lock time.Duration) time.Duration { return lock + past }
	default:
		dur, err := time.ParseDuration(stall)
		if err != nil || dur <= 0 {
			p.fail(d.Stall.Line, field+".stall", "%q: want a positive duration or lock+DURATION", stall)
		}
		w.Stall = func(time.Duration) time.Duration { return dur }
	}
	if d.DeliveryTimeout.V < 0 {
		p.fail(d.DeliveryTimeout.Line, field+".delivery-timeout", "want a positive duration")
	}
	return w
}

// mechanisms are the cluster faults by the names of the catalog rows that
// use them (broker-kill, partition, ...): one name per mechanism.
func mechanisms() map[string]faults.Mechanism {
	out := map[string]faults.Mechanism{}
	for _, s := range catalog {
		if s.Cluster != nil {
			out[s.Name] = s.Cluster.Mechanism
		}
	}
	return out
}

func mechanismNames() []string {
	var out []string
	for _, s := range catalog {
		if s.Cluster != nil {
			out = append(out, s.Name)
		}
	}
	return out
}

func (p *fileParser) mechanism(field string, name at[string]) faults.Mechanism {
	m, ok := mechanisms()[name.V]
	if !ok {
		p.fail(name.Line, field, "unknown cluster fault %q (want one of %s)", name.V, strings.Join(mechanismNames(), ", "))
	}
	return m
}

func (p *fileParser) fraction(field string, f at[float64]) float64 {
	if f.V < 0 || f.V >= 1 {
		p.fail(f.Line, field, "%v: want a fraction of the input in [0, 1)", f.V)
	}
	return f.V
}

func (p *fileParser) schedule(field string, d scheduleDoc) *ClusterFault {
	if len(d.Steps) == 0 {
		p.fail(d.AfterLoad.Line, field+".steps", "missing: a schedule is a list of faults")
	}
	var steps []faults.Step
	for i, st := range d.Steps {
		f := fmt.Sprintf("%s.steps[%d]", field, i)
		m := p.mechanism(f+".fault", st.Fault)
		if st.After.V < 0 {
			p.fail(st.After.Line, f+".after", "want a positive duration")
		}
		steps = append(steps, faults.Step{Name: st.Fault.V, Mechanism: m, After: st.After.V})
	}
	return &ClusterFault{Mechanism: faults.Sequence(steps), AfterLoad: p.fraction(field+".after-load", d.AfterLoad)}
}

func (p *fileParser) load(field string, d loadDoc) Load {
	for _, c := range []struct {
		name string
		v    int64
		line int
	}{
		{"records", int64(d.Records.V), d.Records.Line}, {"workers", int64(d.Workers.V), d.Workers.Line},
		{"batch", int64(d.Batch.V), d.Batch.Line}, {"partitions", int64(d.Partitions.V), d.Partitions.Line},
		{"lock", int64(d.Lock.V), d.Lock.Line},
	} {
		if c.line > 0 && c.v <= 0 {
			p.fail(c.line, field+"."+c.name, "want a positive value")
		}
	}
	return Load{Records: d.Records.V, Workers: d.Workers.V, Batch: d.Batch.V, Partitions: d.Partitions.V, Lock: d.Lock.V}
}

func (p *fileParser) profile(field string, d profileDoc, fileRows []Scenario) Profile {
	pr := Profile{Name: d.Name.V, About: d.About, Repeats: d.Repeats.V}
	if pr.Name == "" || !nameRe.MatchString(pr.Name) {
		p.fail(d.Name.Line, field+".name", "%q: want a kebab-case name", pr.Name)
	}
	if slices.Contains(ProfileNames(), pr.Name) {
		p.fail(d.Name.Line, field+".name", "%q is a built-in profile", pr.Name)
	}
	if d.Repeats.Line > 0 && d.Repeats.V <= 0 {
		p.fail(d.Repeats.Line, field+".repeats", "want a positive number")
	}
	for i, n := range d.Scenarios {
		_, builtIn := Lookup(n.V)
		inFile := slices.ContainsFunc(fileRows, func(s Scenario) bool { return s.Name == n.V })
		if !builtIn && !inFile {
			p.fail(n.Line, fmt.Sprintf("%s.scenarios[%d]", field, i), "unknown scenario %q", n.V)
		}
		pr.Scenarios = append(pr.Scenarios, n.V)
	}
	for i, t := range d.Thresholds {
		p.threshold(t, fmt.Sprintf("%s.thresholds[%d]", field, i))
		pr.Thresholds = append(pr.Thresholds, t.V)
	}
	return pr
}

func (p *fileParser) threshold(t at[string], field string) {
	if _, err := bench.ParseThreshold(t.V); err != nil {
		p.fail(t.Line, field, "%v", err)
	}
}
