package conformance_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289/conformance"
)

// TestFailoversSayWhatIsMissing: the embedded cluster offers no broker
// kill or restart (kfake's recovery is not faithful) and one broker has no
// other to move a leader to: each failover is missing with a reason naming
// the backend, and every case that needs one is N/A saying which; a case
// that needs none is never N/A.
func TestFailoversSayWhatIsMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a broker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hc := harness.Common{Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: "native"}.WithDefaults()
	eb, err := hc.ChooseEmbeddedBroker()
	if err != nil {
		t.Skipf("the reference broker is not built (make refbroker): %v", err)
	}
	c, err := embedded.Start(ctx, embedded.Options{Brokers: 1, LogPath: filepath.Join(t.TempDir(), "broker.log"), Reference: eb.Reference})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close(context.Background()) }()
	f := conformance.FailoversOf(c)
	if f.Restart != nil || f.KillLeader != nil || f.MoveLeader != nil {
		t.Fatalf("failovers offered by one embedded broker: %+v", f)
	}
	for _, n := range []conformance.Need{conformance.NeedRestart, conformance.NeedKill, conformance.NeedMove} {
		if !strings.Contains(f.Lacks[n], "embedded") && !strings.Contains(f.Lacks[n], "one broker") {
			t.Errorf("%s missing without a reason naming the backend: %q", n, f.Lacks[n])
		}
	}
	b := conformance.Broker{Kind: conformance.Kafka, Lacks: f.Lacks}
	for _, cs := range conformance.Cases {
		why := b.Missing(cs)
		switch {
		case len(cs.Needs) == 0 && why != "":
			t.Errorf("%s needs nothing, yet: %s", cs.Name, why)
		case len(cs.Needs) > 0 && !strings.HasPrefix(why, "needs a "+string(cs.Needs[0])+": "):
			t.Errorf("%s: %q, want the need and its reason", cs.Name, why)
		}
	}
}
