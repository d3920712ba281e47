package benchrun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// A paired overhead run leaves each side's transactions on a time line, so
// that where the overhead goes can be read afterwards instead of guessed:
// bare-timeline.jsonl holds every bare transaction's intended start, poll
// returned, begin and commit returned; instrumented/intended.jsonl every
// instrumented transaction's intended start, by worker and txn, to join with
// the same transaction's events in instrumented/histories (poll ok, begin,
// send, commit ...). Written after the load, from memory: nothing of it runs
// while the loops are measured.

// timelineEntry is one line of either file; unix nanoseconds, 0 when not
// known on that side.
type timelineEntry struct {
	Worker    string `json:"worker,omitempty"`
	Txn       int64  `json:"txn,omitempty"`
	Intended  int64  `json:"intended"`
	Polled    int64  `json:"polled,omitempty"`
	Begun     int64  `json:"begun,omitempty"`
	Committed int64  `json:"committed,omitempty"`
}

// Timeline file names under a paired run's directory.
const (
	bareTimelineFile = "bare-timeline.jsonl"
	intendedFile     = "intended.jsonl"
)

func writeBareTimeline(dir string, samples []bareSample) error {
	es := make([]timelineEntry, len(samples))
	for i, s := range samples {
		es[i] = timelineEntry{Intended: s.intended.UnixNano(), Polled: s.polled.UnixNano(),
			Begun: s.intended.Add(s.d - s.service).UnixNano(), Committed: s.intended.Add(s.d).UnixNano()}
	}
	return writeTimeline(filepath.Join(dir, bareTimelineFile), es)
}

func writeIntended(dir string, started map[txnKey]time.Time) error {
	es := make([]timelineEntry, 0, len(started))
	for k, t := range started {
		es = append(es, timelineEntry{Worker: k.worker, Txn: k.seq, Intended: t.UnixNano()})
	}
	return writeTimeline(filepath.Join(dir, intendedFile), es)
}

func writeTimeline(path string, es []timelineEntry) error {
	slices.SortFunc(es, func(a, b timelineEntry) int { return int(a.Intended - b.Intended) })
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write time line: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, e := range es {
		if err := enc.Encode(e); err != nil {
			_ = f.Close()
			return fmt.Errorf("write time line: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return fmt.Errorf("write time line: %w", err)
	}
	return f.Close()
}
