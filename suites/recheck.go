package suites

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/reports"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// observationFile stores what a cell observed (everything but the histories,
// which are files of their own), so a run can be re-checked offline.
const observationFile = "observation.json"

// storedObservation is the JSON form of ctp.Observation without its history.
type storedObservation struct {
	Mode          ctp.AckMode     `json:"mode"`
	Realization   string          `json:"realization"`
	InputTopic    string          `json:"input_topic"`
	Inputs        []ctp.Input     `json:"inputs"`
	Outputs       []ctp.Output    `json:"outputs"`
	ShareStart    map[int32]int64 `json:"share_start"`
	InputEnd      map[int32]int64 `json:"input_end"`
	DeliveryLimit int32           `json:"delivery_limit"`
}

func saveObservation(dir string, obs *ctp.Observation) error {
	b, err := json.Marshal(storedObservation{Mode: obs.Mode, Realization: obs.Realization, InputTopic: obs.InputTopic, Inputs: obs.Inputs,
		Outputs: obs.Outputs, ShareStart: obs.ShareStart, InputEnd: obs.InputEnd, DeliveryLimit: obs.DeliveryLimit})
	if err != nil {
		return fmt.Errorf("save observation: %w", err)
	}
	return reports.WriteFileAtomic(filepath.Join(dir, observationFile), b)
}

func loadObservation(dir string) (ctp.Observation, error) {
	b, err := os.ReadFile(filepath.Join(dir, observationFile))
	if err != nil {
		return ctp.Observation{}, fmt.Errorf("load observation: %w", err)
	}
	var s storedObservation
	if err := json.Unmarshal(b, &s); err != nil {
		return ctp.Observation{}, fmt.Errorf("load observation %s: %w", dir, err)
	}
	h, err := history.ReadDir(filepath.Join(dir, "histories"))
	if err != nil {
		return ctp.Observation{}, err
	}
	return ctp.Observation{Mode: s.Mode, Realization: s.Realization, InputTopic: s.InputTopic, Inputs: s.Inputs, Outputs: s.Outputs,
		ShareStart: s.ShareStart, InputEnd: s.InputEnd, DeliveryLimit: s.DeliveryLimit, History: h}, nil
}

// Recheck judges a stored run again from its files, offline: the checker
// reads each cell's observation and histories. Cells that were never observed
// (N/A, harness errors, interrupted) keep their stored verdict. It returns the
// stored result with the new judgements and the list of cells whose verdict
// changed.
func Recheck(dir string) (reports.Result, []string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return reports.Result{}, nil, fmt.Errorf("recheck %s: %w", dir, err)
	}
	var res reports.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return reports.Result{}, nil, fmt.Errorf("recheck %s: result.json: %w", dir, err)
	}
	var changed []string
	for i, c := range res.Runs {
		if c.Dir == "" {
			continue
		}
		cdir := filepath.Join(dir, c.Dir)
		if _, err := os.Stat(filepath.Join(cdir, observationFile)); err != nil {
			continue
		}
		obs, err := loadObservation(cdir)
		if err != nil {
			return res, changed, err
		}
		allowed, err := check.AllowedFor(ctp.AckMode(c.Mode), c.Scenario)
		if err != nil {
			return res, changed, err
		}
		got := check.Run(obs, allowed)
		nc := c
		nc.Counts, nc.Anomalies, nc.Verdict, nc.Reason = got.Counts, got.Anomalies, got.Verdict, got.Reason
		if nc.Anomalies == nil {
			nc.Anomalies = map[string]verdict.Found{}
		}
		judgeFired(&nc, obs.History, c.Fault.Name != "" && c.Fault.Name != "steady")
		if nc.Verdict != c.Verdict || nc.Counts != c.Counts {
			changed = append(changed, fmt.Sprintf("%s: %s -> %s", c.Name(), c.Verdict, nc.Verdict))
		}
		res.Runs[i] = nc
	}
	vs := make([]verdict.Verdict, len(res.Runs))
	for i, c := range res.Runs {
		vs[i] = c.Verdict
	}
	res.Verdict = verdict.Worst(vs...)
	if res.Interrupted && res.Verdict == verdict.Pass {
		res.Verdict = verdict.Unknown
	}
	res.ExitCode = res.Verdict.ExitCode()
	return res, changed, nil
}
