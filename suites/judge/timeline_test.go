package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/result"
)

// TestTimelineBuckets: a long cell's timelines stay within the bucket
// budget, and its commit latency is drawn per bucket.
func TestTimelineBuckets(t *testing.T) {
	for _, c := range []struct {
		span, want time.Duration
	}{{30 * time.Second, time.Second}, {5 * time.Minute, time.Second}, {6 * time.Minute, 2 * time.Second}, {time.Hour, 15 * time.Second}, {24 * time.Hour, 5 * time.Minute}} {
		if got := timelineStepFor(c.span); got != c.want {
			t.Errorf("step for %s = %s, want %s", c.span, got, c.want)
		}
	}
	// An hour of commits, 5 a second, 10 ms each with a 1 s one a minute.
	var h history.History
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := range 3600 * 5 {
		d := 10 * time.Millisecond
		if i%300 == 0 {
			d = time.Second
		}
		h = append(h, history.Event{TS: t0 + int64(i)*int64(200*time.Millisecond), F: history.FCommit, Type: history.OK, DurNS: int64(d), Records: []history.Rec{{ID: "r"}}})
	}
	figs := cellTimelines(result.Cell{Scenario: "steady", Mode: "explicit", Backend: "embedded"}, h)
	if len(figs) != 2 {
		t.Fatalf("%d figures", len(figs))
	}
	rate, lat := figs[0], figs[1]
	if n := len(rate.Series[0].Points); n > timelineMaxBuckets || n < 200 {
		t.Errorf("rate: %d points, want at most %d", n, timelineMaxBuckets)
	}
	if v := rate.Series[0].Points[10].Value; v != 5 {
		t.Errorf("rate: %v records/s, want 5 (the mean over the bucket)", v)
	}
	if len(lat.Series) != 3 || !strings.Contains(lat.Title, "per 15s") {
		t.Fatalf("latency: %q with %d series, want p50, p99 and max per 15s", lat.Title, len(lat.Series))
	}
	p50, mx := lat.Series[0].Points, lat.Series[2].Points
	if len(p50) > timelineMaxBuckets+1 || p50[0].Value != 10 || mx[0].Value != 1000 || mx[1].Value != 10 {
		t.Errorf("latency per bucket: %d points, p50 %v, max %v then %v", len(p50), p50[0].Value, mx[0].Value, mx[1].Value)
	}
}

// TestSoakTimeline: a soak's table has at most soakRows buckets over the
// whole history, sums what was seeded and committed, and marks the buckets
// a fault acted in.
func TestSoakTimeline(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var h history.History
	for s := range 180 { // three minutes: a seed event and two commits a second
		ts := t0.Add(time.Duration(s) * time.Second).UnixNano()
		h = append(h, history.Event{TS: ts, F: history.FSeed, Type: history.OK, Attrs: map[string]string{"records": "50"}},
			history.Event{TS: ts + 1, F: history.FCommit, Type: history.OK, DurNS: int64(5 * time.Millisecond), Records: make([]history.Rec, 25)},
			history.Event{TS: ts + 2, F: history.FCommit, Type: history.OK, DurNS: int64(7 * time.Millisecond), Records: make([]history.Rec, 25)})
	}
	c := result.Cell{Fault: result.Fault{Name: "slow-network", Times: []time.Time{t0.Add(65 * time.Second)}, Healed: []time.Time{t0.Add(85 * time.Second)}}}
	tl := SoakTimeline(c, h)
	if len(tl) == 0 || len(tl) > soakRows {
		t.Fatalf("%d buckets, want 1 to %d", len(tl), soakRows)
	}
	seeded, committed, faulty := 0, 0, 0
	for _, b := range tl {
		seeded += b.Seeded
		committed += b.Committed
		if b.Fault {
			faulty++
		}
	}
	if seeded != 9000 || committed != 9000 || tl[0].CommitP50Ms != 7 && tl[0].CommitP50Ms != 5 || tl[0].CommitMaxMs != 7 {
		t.Errorf("seeded %d, committed %d, first bucket %+v", seeded, committed, tl[0])
	}
	if faulty < 2 || faulty > 4 || !tl[7].Fault || tl[0].Fault {
		t.Errorf("%d buckets with the fault (65 s to 85 s in 10 s buckets): %+v", faulty, tl)
	}
}
