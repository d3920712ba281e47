package suites

import (
	"errors"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// requireJavaWorker fails when the Java worker's jar or a JRE is missing:
// `make test` builds the jar first (make java-worker).
func requireJavaWorker(t *testing.T) {
	t.Helper()
	c, _ := workerset.LookupClient(workerset.ClientJava)
	if err := c.Find(); err != nil {
		t.Fatal(err)
	}
}

// TestJavaWorker runs crash-after-commit in every mode with the Java worker
// (Apache Kafka's KafkaShareConsumer and transactional KafkaProducer) on the
// embedded backend, the transactional mode through the ledger: the Go checker
// judges its histories unchanged, one cell per mode:
// go test -run 'TestJavaWorker/crash-after-commit/explicit' ./suites/
func TestJavaWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded cluster and the Java worker; skipped with -short")
	}
	requireJavaWorker(t)
	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", TxnAcks: "ledger", Seed: 24,
		Modes: []ctp.AckMode{ctp.Implicit, ctp.Explicit, ctp.Transactional}, Clients: []string{workerset.ClientJava}},
		Scenarios: []string{"crash-after-commit"}, Records: 300})
	for _, c := range res.Runs {
		if !hasNote(c, "client: java") {
			t.Errorf("%s: notes %v do not name the Java client", c.Name(), c.Notes)
		}
	}
	checkCells(t, res, map[string]map[ctp.AckMode]expectation{
		"crash-after-commit": {
			ctp.Implicit:      {verdict: verdict.Pass, anyDuplicates: true},
			ctp.Explicit:      {verdict: verdict.Pass, minDuplicated: 1},
			ctp.Transactional: {verdict: verdict.Pass},
		},
	})
}

// TestJavaClientUsage: --client java without its jar is a usage error naming
// where it looked; with the native realization it is refused before anything
// runs.
func TestJavaClientUsage(t *testing.T) {
	t.Setenv(workerset.JavaWorkerEnv, "/nonexistent/sharechaos-java-worker.jar")
	o := Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}, Clients: []string{workerset.ClientJava}}, Scenarios: []string{"steady"}}
	if _, err := o.Validated(); !isUsage(err) {
		t.Errorf("missing jar: %v, want a usage error", err)
	}
	o.Modes, o.TxnAcks = []ctp.AckMode{ctp.Transactional}, "native"
	if _, err := o.Validated(); !isUsage(err) {
		t.Errorf("native realization: %v, want a usage error", err)
	}
	o.Clients = []string{"rust"}
	if _, err := o.Validated(); !isUsage(err) {
		t.Errorf("--client rust: %v, want a usage error", err)
	}
}

func isUsage(err error) bool {
	var u *harness.UsageError
	return errors.As(err, &u)
}
