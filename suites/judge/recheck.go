package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"path/filepath"
	"sort"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/scenarios"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// ObservationFile stores what a cell observed (everything but the histories,
// which are files of their own), so a run can be re-checked offline.
const ObservationFile = "observation.json"

// storedObservation is the JSON form of ctp.Observation without its history,
// plus the manifest of the histories it was judged from.
type storedObservation struct {
	Mode        ctp.AckMode  `json:"mode"`
	Realization string       `json:"realization"`
	InputTopic  string       `json:"input_topic"`
	Inputs      []ctp.Input  `json:"inputs"`
	Outputs     []ctp.Output `json:"outputs"`
	// ShareStart is the start offset the cell was judged by (the drain's:
	// Kafka's, or the end offset where ShareStartRule says the partition is
	// done); ShareStartReported Kafka's own, absent from observations
	// stored before it was kept.
	ShareStart         map[int32]int64  `json:"share_start"`
	ShareStartReported map[int32]int64  `json:"share_start_reported,omitempty"`
	ShareStartRule     map[int32]string `json:"share_start_rule,omitempty"`
	InputEnd           map[int32]int64  `json:"input_end"`
	DeliveryLimit      int32            `json:"delivery_limit"`
	// Poison, DLQTopic and DLQ: a dead-letter row's poison rule and what its
	// dead-letter topic held (absent elsewhere).
	Poison   *ctp.Poison     `json:"poison,omitempty"`
	DLQTopic string          `json:"dlq_topic,omitempty"`
	DLQ      []ctp.DLQRecord `json:"dlq,omitempty"`
	// Histories maps each history file the cell was judged from to its
	// number of events, so a re-check can tell a deleted or cut history
	// from a complete one.
	Histories map[string]int `json:"histories,omitempty"`
}

func SaveObservation(dir string, obs *ctp.Observation) error {
	manifest, err := historyManifest(filepath.Join(dir, "histories"))
	if err != nil {
		return fmt.Errorf("save observation: %w", err)
	}
	b, err := json.Marshal(storedObservation{Mode: obs.Mode, Realization: obs.Realization, InputTopic: obs.InputTopic, Inputs: obs.Inputs,
		Outputs: obs.Outputs, ShareStart: obs.ShareStart, ShareStartReported: obs.ShareStartReported, ShareStartRule: obs.ShareStartRule,
		InputEnd: obs.InputEnd, DeliveryLimit: obs.DeliveryLimit, Poison: obs.Poison, DLQTopic: obs.DLQTopic, DLQ: obs.DLQ,
		Histories: manifest})
	if err != nil {
		return fmt.Errorf("save observation: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, ObservationFile), b)
}

// historyManifest counts the events of every history file in dir.
func historyManifest(dir string) (map[string]int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	m := map[string]int{}
	for _, p := range paths {
		h, err := history.ReadFile(p)
		if err != nil {
			return nil, err
		}
		m[filepath.Base(p)] = len(h)
	}
	return m, nil
}

// errIncomplete says a stored cell cannot be re-derived; its text is the
// UNKNOWN reason.
type errIncomplete struct{ why string }

func (e *errIncomplete) Error() string { return e.why }

// loadObservation reads a cell's stored observation and histories, and
// checks the histories against the manifest written with it.
func loadObservation(dir string) (ctp.Observation, error) {
	path := filepath.Join(dir, ObservationFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return ctp.Observation{}, &errIncomplete{fmt.Sprintf("cannot re-derive the cell: %s is missing or unreadable (%v)", path, err)}
	}
	var s storedObservation
	if err := json.Unmarshal(b, &s); err != nil {
		return ctp.Observation{}, &errIncomplete{fmt.Sprintf("cannot re-derive the cell: %s: %v", path, err)}
	}
	hdir := filepath.Join(dir, "histories")
	h, err := history.ReadDir(hdir)
	if err != nil {
		return ctp.Observation{}, &errIncomplete{fmt.Sprintf("cannot re-derive the cell: %v", err)}
	}
	if why := checkManifest(hdir, s.Histories); why != "" {
		return ctp.Observation{}, &errIncomplete{"cannot re-derive the cell: " + why}
	}
	return ctp.Observation{Mode: s.Mode, Realization: s.Realization, InputTopic: s.InputTopic, Inputs: s.Inputs, Outputs: s.Outputs,
		ShareStart: s.ShareStart, ShareStartReported: s.ShareStartReported, ShareStartRule: s.ShareStartRule,
		InputEnd: s.InputEnd, DeliveryLimit: s.DeliveryLimit, Poison: s.Poison, DLQTopic: s.DLQTopic, DLQ: s.DLQ, History: h}, nil
}

// checkManifest says which history is missing or truncated, "" when every
// file holds at least the events it held when the cell was judged.
func checkManifest(dir string, manifest map[string]int) string {
	names := make([]string, 0, len(manifest))
	for n := range manifest {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		h, err := history.ReadFile(filepath.Join(dir, n))
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Sprintf("history %s is missing", filepath.Join(dir, n))
		}
		if err != nil {
			return err.Error()
		}
		if len(h) < manifest[n] {
			return fmt.Sprintf("history %s is truncated: %d of its %d events", filepath.Join(dir, n), len(h), manifest[n])
		}
	}
	return ""
}

// Recheck judges a stored run again from its files, offline, with the same
// judgement as a live run (judgeCell, judgeRun, the thresholds): the checker
// reads each cell's observation and histories. A cell that was judged but
// cannot be re-derived (observation.json or a history missing, a history cut)
// is UNKNOWN with the reason, never its stored verdict. Cells that were never
// observed (N/A, harness errors, interrupted) keep their stored verdict and
// reason. It returns the re-checked result and the cells whose verdict changed.
func Recheck(dir string) (result.Result, []string, error) {
	return RecheckWith(dir, scenarios.Catalog{})
}

// RecheckWith is Recheck with the catalog the run had (the rows of its
// --scenario-file besides the built-in ones).
func RecheckWith(dir string, cat scenarios.Catalog) (result.Result, []string, error) {
	res, err := result.ReadResult(dir)
	if err != nil {
		return result.Result{}, nil, fmt.Errorf("recheck: %w", err)
	}
	var changed []string
	sp, planned, err := ReadPlan(dir)
	if err != nil {
		return result.Result{}, nil, fmt.Errorf("recheck: %w", err)
	}
	var unfinished []string
	if planned {
		res, unfinished = AddUnfinished(res, sp)
	}
	conds, shape := runConditions(res.Config), runShape(res)
	conds.Shape = shape
	for i, c := range res.Runs {
		nc := recheckCell(dir, c, cat, conds, shape)
		if nc.Verdict != c.Verdict || nc.Counts != c.Counts {
			changed = append(changed, fmt.Sprintf("%s: %s -> %s", c.Name(), c.Verdict, nc.Verdict))
		}
		res.Runs[i] = nc
	}
	for _, n := range unfinished {
		changed = append(changed, "never finished: "+n)
	}
	res.Thresholds = recheckThresholds(res)
	Compare(dir, &res)
	return Run(res), changed, nil
}

// recheckCell re-derives one stored cell.
func recheckCell(dir string, c result.Cell, cat scenarios.Catalog, conds scenarios.Conditions, shape scenarios.Shape) result.Cell {
	if c.Dir == "" || c.Verdict == verdict.NA || c.Verdict == verdict.HarnessError {
		return c
	}
	cdir := filepath.Join(dir, c.Dir)
	if _, err := os.Stat(filepath.Join(cdir, ObservationFile)); errors.Is(err, os.ErrNotExist) && c.Input == 0 {
		// Never observed (interrupted before the read-back): nothing to re-derive.
		return c
	}
	nc := c
	nc.Anomalies = map[string]verdict.Found{}
	obs, err := loadObservation(cdir)
	if err != nil {
		nc.Counts = verdict.Counts{}
		nc.Verdict, nc.Reason = verdict.Unknown, err.Error()
		return nc
	}
	s, ok := cat.Lookup(c.Scenario)
	if !ok {
		nc.Verdict, nc.Reason = verdict.Unknown, fmt.Sprintf("cannot re-derive the cell: scenario %q is not in this build's catalog (a --scenario-file row? give the file to check)", c.Scenario)
		return nc
	}
	nc.Verdict, nc.Reason = "", ""
	// What this build's catalog says the case cannot be in this mode or
	// realization is derived from the row alone (a backend's capabilities
	// need the cluster, and that cell ran, so they held).
	if why := s.NAReason(obs.Mode, obs.Realization, nil, s.Load.Over(shape)); why != "" && s.Cluster == nil {
		nc.Counts, nc.Verdict, nc.Reason = verdict.Counts{}, verdict.NA, why
		return nc
	}
	Cell(&nc, obs, s, conds)
	nc.Latency = map[string]result.Percentiles{}
	for name, hist := range Latency(obs.History) {
		nc.Latency[name] = hist.Percentiles()
	}
	return nc
}

// recheckThresholds judges the run's thresholds again on the re-checked
// cells. A threshold that matched no cell cannot have failed, so the texts
// of the stored results are all there is to re-judge.
func recheckThresholds(res result.Result) []result.ThresholdResult {
	seen := map[string]bool{}
	var texts []string
	for _, t := range res.Thresholds {
		if !seen[t.Threshold] {
			seen[t.Threshold] = true
			texts = append(texts, t.Threshold)
		}
	}
	ts, err := bench.ParseThresholds(texts)
	if err != nil {
		// A stored threshold this build cannot read cannot be re-judged: it
		// fails, naming why, rather than silently passing.
		return []result.ThresholdResult{{Threshold: fmt.Sprint(texts), Reason: "cannot re-judge: " + err.Error()}}
	}
	return Thresholds(ts, res.Runs)
}
