package benchrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// TestReadPhases reads a hand-written paired run: one bare transaction, one
// instrumented one whose ten events are 10 µs apart except for the three
// client round trips (send 500 µs, commit 300 µs, ack 200 µs, each with
// its dur_ns), and one warm-up transaction with no intended start, which
// must be left out.
func TestReadPhases(t *testing.T) {
	dir := t.TempDir()
	const t0 = int64(1_000_000_000_000)
	us := int64(time.Microsecond)
	bare := []bareSample{{intended: time.Unix(0, t0), polled: time.Unix(0, t0+1000*us), d: 2000 * time.Microsecond, service: 900 * time.Microsecond}}
	if err := writeBareTimeline(dir, bare); err != nil {
		t.Fatal(err)
	}
	ins := filepath.Join(dir, "instrumented")
	if err := os.MkdirAll(filepath.Join(ins, "histories"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeIntended(ins, map[txnKey]time.Time{{"w1.1", 2}: time.Unix(0, t0)}); err != nil {
		t.Fatal(err)
	}
	rec, err := history.Create(filepath.Join(ins, "histories", "w1.1.jsonl"), "w1.1")
	if err != nil {
		t.Fatal(err)
	}
	// The poll returns 1100 µs after the intended start; every step without
	// a round trip takes 10 µs.
	for txn := int64(1); txn <= 2; txn++ {
		ts := t0 + 1100*us
		for _, step := range []struct {
			e     history.Event
			after int64 // µs to the next event
		}{
			{history.Event{Type: history.OK, F: history.FPoll}, 10},
			{history.Event{Type: history.Invoke, F: history.FBegin, Txn: txn}, 10},
			{history.Event{Type: history.OK, F: history.FBegin, Txn: txn}, 10},
			{history.Event{Type: history.Invoke, F: history.FSend, Txn: txn}, 510},
			{history.Event{Type: history.OK, F: history.FSend, Txn: txn, DurNS: 500 * us}, 10},
			{history.Event{Type: history.OK, F: history.FFlush, Txn: txn}, 10},
			{history.Event{Type: history.Invoke, F: history.FCommit, Txn: txn}, 310},
			{history.Event{Type: history.OK, F: history.FCommit, Txn: txn, DurNS: 300 * us}, 10},
			{history.Event{Type: history.Invoke, F: history.FAck}, 210},
			{history.Event{Type: history.OK, F: history.FAck, DurNS: 200 * us}, 0},
		} {
			step.e.TS = ts
			if txn == 1 {
				step.e.TS -= 50_000 * us // the warm-up's, long before
			}
			if err := rec.Record(step.e); err != nil {
				t.Fatal(err)
			}
			ts += step.after * us
		}
	}
	_ = rec.Close()

	ph, err := readPhases([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := overheadPhases{txns: 1, barePoll: 1000 * time.Microsecond, insPoll: 1100 * time.Microsecond,
		bareTotal: 2000 * time.Microsecond, insCommit: 1970 * time.Microsecond,
		steps: 100 * time.Microsecond, stepsAfterCommit: 30 * time.Microsecond}
	if ph != want {
		t.Errorf("phases %+v, want %+v", ph, want)
	}
	for _, s := range []string{"poll returned +100 µs (bare 1000 µs)", "commit returned -30 µs (bare 2000 µs)", "take 100 µs per transaction", "30 µs of them after the commit"} {
		if !strings.Contains(ph.words(), s) {
			t.Errorf("words lack %q: %s", s, ph.words())
		}
	}

	if _, err := readPhases([]string{t.TempDir()}); err == nil {
		t.Error("a directory without time lines read without error")
	}
}

// TestOverheadWhy: the words follow the figure, name the batch whose figure
// is the median, and refuse to read a saturated run as the harness's cost.
func TestOverheadWhy(t *testing.T) {
	for _, c := range []struct {
		figure float64
		ratios []float64
		wheres []string
		want   string
	}{
		{1.10, []float64{1.04, 1.10, 1.14}, []string{"a", "b", "c"}, "above 1.03: the instrumented loop is slower than the bare one by more than the band; where its time goes, measured in the same runs: batch 10 (1.100): b"},
		{1.01, []float64{1.01, 0.99, 1.02}, []string{"a", "b", "c"}, "within 0.97-1.03: the harness's own work is no more than 3 % of a transaction here; batch 1 (1.010): a"},
		{0.95, []float64{0.95, 0.94, 0.99}, []string{"a", "b", "c"}, "below 0.97"},
		{1.20, []float64{1.0, 1.2, 1.3}, []string{"a", "saturated: x", "c"}, "not a measure of the harness: batch 10 (1.200): saturated: x"},
	} {
		got := overheadWhy(c.figure, []int{1, 10, 100}, c.ratios, c.wheres)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("overheadWhy(%v) = %q, want it to start with %q", c.figure, got, c.want)
		}
	}
}
