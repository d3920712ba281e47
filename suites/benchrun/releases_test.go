package benchrun

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
)

// TestCompareReleases: each release's repeats against the first release's,
// per mode and batch, one value per repeat (its commit p50); a failed
// repeat is left out.
func TestCompareReleases(t *testing.T) {
	benchOf := func(base float64, failed bool) result.Bench {
		var b result.Bench
		for rep := 1; rep <= 5; rep++ {
			for _, m := range []string{"explicit", "transactional"} {
				r := result.BenchRun{Mode: m, Batch: 10, Repeat: rep,
					Latency: map[string]result.Percentiles{bench.TxnCommitDuration: {Count: 100, P50: base + float64(rep)}}}
				if m == "transactional" {
					r.Realization = "ledger"
				}
				if failed && rep == 5 {
					r.Error = "cluster gone"
				}
				b.Runs = append(b.Runs, r)
			}
		}
		return b
	}
	got := compareReleases([]string{"4.2.2", "4.4.0"}, []result.Bench{benchOf(10, false), benchOf(30, true)}, 0.05)
	if len(got) != 2 {
		t.Fatalf("rows %+v", got)
	}
	for _, c := range got {
		if c.Baseline != "4.2.2" || c.Candidate != "4.4.0" || c.N1 != 5 || c.N2 != 4 || !c.Significant || !strings.Contains(c.Words, "4.4.0 slower") {
			t.Errorf("%+v", c)
		}
	}
	if got[1].Mode != "transactional/ledger" || got[0].Scenario != "bench, batch 10" {
		t.Errorf("labels: %+v", got)
	}
	if md := releasesWords(releasesFile{Comparisons: got}); !strings.Contains(md, "| explicit | bench, batch 10 | 4.4.0 | 4.2.2 |") {
		t.Errorf("releases.md:\n%s", md)
	}
}
