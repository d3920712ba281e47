package ctp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// TestSteppedAnswer decodes the Java worker's answer line (its UnitTest's
// stepResultLine writes the same line) into the Go worker's StepResult.
func TestSteppedAnswer(t *testing.T) {
	line := `{"records":10,"outcome":"ok","commit_ns":2500000,"total_ns":9000000,"ack_ns":1000000,"txn_acks_ns":0,"txn":7}`
	var a SteppedAnswer
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatal(err)
	}
	want := StepResult{Records: 10, Outcome: history.OK, Commit: 2500 * time.Microsecond, Total: 9 * time.Millisecond, Ack: time.Millisecond}
	if got := a.Result(); got != want || a.Txn != 7 || a.Error != "" {
		t.Errorf("%+v (txn %d), want %+v (txn 7)", got, a.Txn, want)
	}
}
