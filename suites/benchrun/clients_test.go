package benchrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/bench"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestBenchClients runs the bench once per client (--client go,java) on the
// embedded backend: a bench directory each, the Java workers stepped by the
// same driver (their commits measured), and clients.json comparing java's
// repeats with go's per mode and batch:
// go test -run TestBenchClients ./suites/benchrun/
func TestBenchClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded cluster and the Java worker; skipped with -short")
	}
	if c, _ := workerset.LookupClient(workerset.ClientJava); c.Find() != nil {
		t.Fatal(c.Find())
	}
	out := filepath.Join(t.TempDir(), "bench")
	o := Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 24, Out: out,
		Clients: []string{workerset.ClientGo, workerset.ClientJava}},
		Rates: []float64{20}, Duration: 2 * time.Second, Warmup: time.Second, Repeats: 2, Batches: []int{10}, Workers: 2}
	if testing.Verbose() {
		o.Progress = testWriter{t}
	}
	b, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("bench: %v", err)
	}
	if b.Verdict != "PASS" {
		t.Errorf("verdict %s, want PASS", b.Verdict)
	}
	for _, client := range o.Clients {
		cb, err := result.ReadBenchJSON(filepath.Join(out, "client-"+client, result.BenchFile))
		if err != nil {
			t.Fatalf("%s's bench: %v", client, err)
		}
		for _, r := range cb.Runs {
			if r.Error != "" || r.Latency[bench.TxnCommitDuration].Count == 0 {
				t.Errorf("%s's run %s repeat %d: error %q, %d commits", client, r.Label(), r.Repeat, r.Error, r.Latency[bench.TxnCommitDuration].Count)
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "clients.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Clients []struct {
			Client string `json:"client"`
		} `json:"clients"`
		Comparisons []result.Comparison `json:"comparisons"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Clients) != 2 || f.Clients[1].Client != "java" || len(f.Comparisons) != 1 {
		t.Fatalf("clients.json: %s", raw)
	}
	if c := f.Comparisons[0]; c.Baseline != "go" || c.Candidate != "java" || c.N1 != 2 || c.N2 != 2 || c.Mode != "explicit" {
		t.Errorf("comparison %+v, want java's 2 repeats against go's, explicit", c)
	}
}
