package benchrun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// Where a paired run's overhead goes, read from its two time lines after the
// bench (timeline.go): both sides' p50 from the intended start to the poll
// returned and to the commit returned, and on the instrumented side the time
// its own steps take between client round trips, from the history's
// timestamps. A history event's timestamp is taken before it is encoded and
// written, so the gap between two events with no client round trip between
// them is the first one's write (plus the few instructions of the loop in
// between); for the steps that hold one (send, commit, ack) the gap minus
// the step's own dur_ns is. The ack ok event's own write has no event after
// it in the transaction: it is counted as long as ack invoke's.

// overheadPhases is the pooled breakdown of one batch size's paired runs.
type overheadPhases struct {
	txns int // instrumented transactions in the standard ten-event form
	// p50s from the intended start, bare and instrumented.
	barePoll, insPoll, bareTotal, insCommit time.Duration
	// steps: the instrumented loop's own steps per transaction (p50), and the
	// part of them after the commit returned (inside txn_total_duration,
	// which ends after the ack's round trip minus that round trip).
	steps, stepsAfterCommit time.Duration
}

// txnForm is the ten events of one explicit-mode transaction, in order.
var txnForm = []struct {
	t history.Type
	f string
}{
	{history.OK, history.FPoll}, {history.Invoke, history.FBegin}, {history.OK, history.FBegin},
	{history.Invoke, history.FSend}, {history.OK, history.FSend}, {history.OK, history.FFlush},
	{history.Invoke, history.FCommit}, {history.OK, history.FCommit}, {history.Invoke, history.FAck}, {history.OK, history.FAck},
}

// readPhases reads the paired runs in dirs (one batch size, every repeat).
func readPhases(dirs []string) (overheadPhases, error) {
	var barePoll, bareTotal, insPoll, insCommit, steps, after []time.Duration
	for _, dir := range dirs {
		bare, err := readTimeline(filepath.Join(dir, bareTimelineFile))
		if err != nil {
			return overheadPhases{}, err
		}
		for _, e := range bare {
			barePoll = append(barePoll, time.Duration(e.Polled-e.Intended))
			bareTotal = append(bareTotal, time.Duration(e.Committed-e.Intended))
		}
		ins, err := readTimeline(filepath.Join(dir, "instrumented", intendedFile))
		if err != nil {
			return overheadPhases{}, err
		}
		intended := make(map[txnKey]int64, len(ins))
		for _, e := range ins {
			intended[txnKey{e.Worker, e.Txn}] = e.Intended
		}
		h, err := history.ReadDir(filepath.Join(dir, "instrumented", "histories"))
		if err != nil {
			return overheadPhases{}, err
		}
		byWorker := map[string][]history.Event{}
		for _, e := range h {
			byWorker[e.Worker] = append(byWorker[e.Worker], e)
		}
		for _, evs := range byWorker {
			for i := 0; i+len(txnForm) <= len(evs); i++ {
				t := evs[i : i+len(txnForm)]
				if !inForm(t) {
					continue
				}
				it, ok := intended[txnKey{t[7].Worker, t[7].Txn}]
				if !ok {
					continue // a warm-up transaction
				}
				gap := func(k int) time.Duration { return time.Duration(t[k+1].TS - t[k].TS) }
				ackWrite := gap(8) - time.Duration(t[9].DurNS)
				pre := gap(0) + gap(1) + gap(2) + gap(3) - time.Duration(t[4].DurNS) + gap(4) + gap(5) + gap(6) - time.Duration(t[7].DurNS)
				post := gap(7) + 2*ackWrite
				insPoll = append(insPoll, time.Duration(t[0].TS-it))
				insCommit = append(insCommit, time.Duration(t[7].TS-it))
				steps = append(steps, pre+post)
				after = append(after, post)
				i += len(txnForm) - 1
			}
		}
	}
	if len(bareTotal) == 0 || len(steps) == 0 {
		return overheadPhases{}, fmt.Errorf("read paired runs: no transaction on one side")
	}
	return overheadPhases{txns: len(steps), barePoll: p50d(barePoll), insPoll: p50d(insPoll), bareTotal: p50d(bareTotal),
		insCommit: p50d(insCommit), steps: p50d(steps), stepsAfterCommit: p50d(after)}, nil
}

func inForm(t []history.Event) bool {
	for k, want := range txnForm {
		if t[k].Type != want.t || t[k].F != want.f {
			return false
		}
	}
	return true
}

func readTimeline(path string) ([]timelineEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read time line: %w", err)
	}
	defer f.Close()
	var out []timelineEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e timelineEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("read time line %s: %w", path, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func p50d(v []time.Duration) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// words says where the instrumented loop's time above the bare loop's goes.
func (p overheadPhases) words() string {
	us := func(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
	signed := func(d time.Duration) string {
		if d >= 0 {
			return "+" + us(d)
		}
		return "-" + us(-d)
	}
	return fmt.Sprintf("pooled over the paired runs (%d instrumented transactions), p50 from the intended start: poll returned %s (bare %s), commit returned %s (bare %s); "+
		"the instrumented loop's own steps between client round trips (history events encoded and written, one write(2) each, ten per transaction) take %s per transaction at p50, %s of them after the commit returned and still inside its txn_total_duration",
		p.txns, signed(p.insPoll-p.barePoll), us(p.barePoll), signed(p.insCommit-p.bareTotal), us(p.bareTotal), us(p.steps), us(p.stepsAfterCommit))
}
