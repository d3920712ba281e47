package bench

import (
	"github.com/sharechaos/sharechaos/result"
	"testing"
	"time"
)

func TestFillCellAndRun(t *testing.T) {
	r := NewRecorder(0)
	for i := 0; i < 200; i++ {
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		r.Record(TxnCommitDuration, at, 2*time.Millisecond)
		r.Record(TxnTotalDuration, at, 5*time.Millisecond)
		r.Add(Transactions, at, 1)
		r.Add(Records, at, 10)
	}
	s := r.Snapshot()
	win := []Window{{Name: "f", Start: t0.Add(time.Second), End: t0.Add(1500 * time.Millisecond)}}
	c := FillCell(result.Cell{Scenario: "steady"}, s, win)
	if c.CommitP50Ms < 1.99 || c.CommitP50Ms > 2.01 || c.TxnP99Ms < 4.99 || c.TxnP99Ms > 5.01 {
		t.Fatalf("cell %+v", c)
	}
	if c.Latency[TxnCommitDuration+"/during"].Count != 50 {
		t.Fatalf("phase summary %+v", c.Latency)
	}
	run := FillRun(result.BenchRun{Mode: "explicit", DurationS: 2}, s, nil)
	if run.TxnPerSec != 100 || run.RecordsPerSec != 1000 || run.Counters[Transactions] != 200 {
		t.Fatalf("run %+v", run)
	}
	if run = FillRun(result.BenchRun{}, s, nil); run.TxnPerSec != 100 {
		t.Fatalf("rate from the span: %+v", run.TxnPerSec)
	}
}

func TestModeFigures(t *testing.T) {
	var reps []Repeat
	for rep := 0; rep < 2; rep++ {
		for _, mode := range []string{"explicit", "transactional"} {
			r := NewRecorder(0)
			start := t0.Add(time.Duration(rep) * time.Minute)
			for i := 0; i < 100; i++ {
				at := start.Add(time.Duration(i) * 30 * time.Millisecond)
				r.Record(TxnTotalDuration, at, time.Duration(rep+1)*time.Millisecond)
				r.Add(Transactions, at, 1)
			}
			reps = append(reps, Repeat{
				Run:      result.BenchRun{Mode: mode, Batch: 10, Repeat: rep, Started: start},
				Snapshot: r.Snapshot(),
				Windows:  []Window{{Name: "slow-network", Start: start.Add(time.Second), End: start.Add(2 * time.Second)}},
			})
		}
	}
	figs := ModeFigures(reps, TxnTotalDuration)
	f := figs[10]
	if len(f) != 3 {
		t.Fatalf("%d figures, want spectrum, latency over time, throughput", len(f))
	}
	if len(f[0].Spectra) != 2 || f[0].Spectra[0].Label != "explicit" {
		t.Fatalf("spectrum %+v", f[0].Spectra)
	}
	// The spectrum merges both repeats: its max is the second repeat's 2 ms.
	if last := f[0].Spectra[0].Points[len(f[0].Spectra[0].Points)-1]; last.ValueMs < 1.99 {
		t.Fatalf("spectrum max %v, want the merged repeats' 2 ms", last.ValueMs)
	}
	if len(f[1].Series) != 2 || len(f[1].Shades) != 1 || f[1].Shades[0].From != time.Second {
		t.Fatalf("latency over time %+v", f[1])
	}
	if len(f[2].Series) != 2 || f[2].Series[1].Label != "transactional" {
		t.Fatalf("throughput %+v", f[2])
	}
}
