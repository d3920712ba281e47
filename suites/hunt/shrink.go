package hunt

import (
	"fmt"
	"time"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// A candidate is one simplification of a failing trial: a fault fewer, a
// fault later or sooner, a smaller shape. Shrinking tries them in order and
// keeps the first that still fails (delta debugging, one element at a
// time: the schedule first, then the shape).
type candidate struct {
	what  string
	trial Trial
}

// Floors of a shrunk shape: below them a trial shows nothing.
const (
	minRecords = 100
)

// candidates are t's simplifications, the biggest cuts first.
func candidates(t Trial) []candidate {
	var out []candidate
	add := func(what string, edit func(*Trial)) {
		c := t.clone()
		edit(&c)
		out = append(out, candidate{what: what, trial: c})
	}
	// Faults: the whole schedule, each step, the worker arm.
	if s := t.Schedule; s != nil && len(s.Steps) > 1 {
		add("no cluster faults", func(c *Trial) { c.Schedule = nil })
	}
	if s := t.Schedule; s != nil {
		for i, st := range s.Steps {
			add(fmt.Sprintf("without step %d (%s)", i+1, st.Fault), func(c *Trial) {
				c.Schedule.Steps = append(c.Schedule.Steps[:i], c.Schedule.Steps[i+1:]...)
				if len(c.Schedule.Steps) == 0 {
					c.Schedule = nil
				} else {
					c.Schedule.Steps[0].After = 0
				}
			})
		}
	}
	if w := t.Worker; w != nil {
		add(fmt.Sprintf("without the worker arm (%s@%s)", w.Action, w.Point), func(c *Trial) { c.Worker = nil })
		if w.Action == ctp.ActionStallOverlap {
			// The overlap's follower (the worker that re-acquires and
			// holds the records) is a part of its own.
			add("a plain stall, no follower holding the records", func(c *Trial) { c.Worker.Action = ctp.ActionStall })
		}
		if w.FreshID {
			add("the replacement on the same transactional id", func(c *Trial) { c.Worker.FreshID = false })
		}
	}
	// Shape: fewer records first (every later replay is faster), then the
	// fewest partitions, workers and the smallest batch.
	if t.Records > minRecords {
		add(fmt.Sprintf("records %d → %d", t.Records, max(minRecords, t.Records/2)), func(c *Trial) { c.Records = max(minRecords, t.Records/2) })
	}
	if t.Partitions > 1 {
		add(fmt.Sprintf("partitions %d → %d", t.Partitions, t.Partitions/2), func(c *Trial) { c.Partitions = t.Partitions / 2 })
	}
	if t.Workers > 1 {
		add(fmt.Sprintf("workers %d → %d", t.Workers, t.Workers-1), func(c *Trial) { c.Workers = t.Workers - 1 })
	}
	if t.Batch > 1 {
		add(fmt.Sprintf("batch %d → %d", t.Batch, t.Batch/2), func(c *Trial) { c.Batch = t.Batch / 2 })
	}
	// Timing: the steps' pauses gone, the schedule sooner.
	if s := t.Schedule; s != nil {
		for i, st := range s.Steps {
			if st.After > time.Second {
				add(fmt.Sprintf("step %d's pause %s → %s", i+1, st.After, st.After/2), func(c *Trial) {
					c.Schedule.Steps[i].After = (st.After / 2).Round(250 * time.Millisecond)
				})
			}
		}
	}
	return out
}

// Shrink is what shrinking did to a finding.
type Shrink struct {
	// Steps are the candidates tried, in order, each with its replays.
	Steps []ShrinkStep `json:"steps"`
	// Final is the smallest trial that still failed; Replays its replays
	// (failed of run).
	Final   Trial   `json:"final"`
	Failed  int     `json:"failed"`
	Replays int     `json:"replays"`
	Before  Measure `json:"before"`
	After   Measure `json:"after"`
	// Stopped says why shrinking ended.
	Stopped string `json:"stopped"`
}

// ShrinkStep is one candidate's replays.
type ShrinkStep struct {
	What    string  `json:"what"`
	Trial   string  `json:"trial"`
	Failed  int     `json:"failed"`
	Replays int     `json:"replays"`
	Kept    bool    `json:"kept"`
	TookS   float64 `json:"took_s"`
	// Unjudged counts replays that judged nothing (UNKNOWN, HARNESS-ERROR).
	Unjudged int `json:"unjudged,omitempty"`
}

// Measure is how big a trial is: its faults, records and the slowest of
// its failing cells' wall time.
type Measure struct {
	Faults  int     `json:"faults"`
	Records int     `json:"records"`
	Seconds float64 `json:"seconds"`
}
