package benchrun

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// fakeClient is a worker process that answers steps from a script: a line
// that is not an answer first (a client library's own output), then a
// transaction per step, txn 1, 2, ..., until its fourth step, which fails.
func fakeClient() workerset.Client {
	script := `echo "a library's banner"; n=0
while read cmd; do
  case "$cmd" in
    stop) exit 0;;
    step) n=$((n+1))
      if [ $n -ge 4 ]; then echo '{"error":"fenced"}'; exit 1; fi
      echo "{\"records\":10,\"outcome\":\"ok\",\"commit_ns\":${n}000000,\"total_ns\":9000000,\"ack_ns\":1000,\"txn_acks_ns\":0,\"txn\":$n}";;
  esac
done`
	return workerset.Client{Name: "fake", Command: func(string) (*exec.Cmd, error) { return exec.Command("sh", "-c", script), nil }}
}

// TestProcessStepper: a stepped worker process's answers become step
// results (the non-answer line skipped), the transaction of each is
// named, an answer of a step abandoned by its context is not taken for the
// next step's, a worker's error ends it, and the config it got says
// stepped.
func TestProcessStepper(t *testing.T) {
	dir := t.TempDir()
	cfg := ctp.WorkerConfig{Slot: 2, Incarnation: 1, HistoryPath: filepath.Join(dir, "histories", "w2.1.jsonl")}
	s, err := startProcessStepper(fakeClient(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(nil)
	ctx := context.Background()
	res, err := s.Step(ctx)
	if err != nil || res.Records != 10 || res.Outcome != history.OK || res.Commit != time.Millisecond || s.TxnSeq() != 1 || s.Name() != "w2.1" {
		t.Fatalf("step 1: %+v %v, txn %d", res, err, s.TxnSeq())
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Step(gone); err == nil {
		t.Fatal("a step under a cancelled context answered")
	}
	res, err = s.Step(ctx)
	if err != nil || s.TxnSeq() != 3 || res.Commit != 3*time.Millisecond {
		t.Fatalf("step after an abandoned one: %+v %v, txn %d; want step 3's answer, not step 2's", res, err, s.TxnSeq())
	}
	if _, err := s.Step(ctx); err == nil || !strings.Contains(err.Error(), "fenced") {
		t.Fatalf("step 4: %v, want the worker's error", err)
	}
	if _, err := s.Step(ctx); err == nil {
		t.Fatal("a step after the worker exited answered")
	}
}
