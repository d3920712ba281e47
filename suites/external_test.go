package suites

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// startEmbeddedForExternal starts an embedded cluster that the test then
// treats as a cluster the suite did not start.
func startEmbeddedForExternal(t *testing.T) *embedded.Cluster {
	t.Helper()
	c, err := embedded.Start(context.Background(), embedded.Options{Brokers: 3,
		LogPath: filepath.Join(t.TempDir(), "broker.log"),
		BrokerConfigs: map[string]string{
			"group.share.session.timeout.ms":    "6000",
			"group.share.heartbeat.interval.ms": "1000",
		}})
	if err != nil {
		t.Fatalf("start embedded: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// scTopics lists the topics a run left behind.
func scTopics(t *testing.T, bootstrap []string) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ts, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, n := range ts.Names() {
		if strings.HasPrefix(n, "sc-") {
			left = append(left, n)
		}
	}
	return left
}

// TestExternalOnEmbedded runs cells through the external backend against a
// cluster it did not start: they pass, the fault without its hook is N/A
// naming the hooks file, the failing hook is a HARNESS-ERROR naming it, the
// report names the cluster, and no sc-* topic is left behind.
func TestExternalOnEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real (embedded) cluster; skipped with -short")
	}
	c := startEmbeddedForExternal(t)
	hooks := filepath.Join(t.TempDir(), "hooks.yaml")
	if err := os.WriteFile(hooks, []byte("hooks:\n  latency: {run: 'echo no tc on this host >&2; exit 7', timeout: 5s}\n  heal: 'true'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runMatrix(t, Options{Common: harness.Common{Backend: "external", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 5,
		Backends: harness.BackendFlags{External: harness.ExternalFlags{Bootstrap: strings.Join(c.Bootstrap(), ","), FaultHooks: hooks}}},
		// 1000 records: at 300 a loaded machine's embedded cluster drained
		// slow-network's cell before its trigger came (CI, never fired).
		Scenarios: []string{"steady", "crash-after-commit", "broker-kill", "slow-network"}, Records: 1000})
	want := map[string]verdict.Verdict{"steady": verdict.Pass, "crash-after-commit": verdict.Pass, "broker-kill": verdict.NA, "slow-network": verdict.HarnessError}
	for _, cell := range res.Runs {
		t.Logf("%s: %s %s", cell.Name(), cell.Verdict, cell.Reason)
		if w, ok := want[cell.Scenario]; ok && cell.Verdict != w {
			t.Errorf("%s: verdict %s (%s), want %s", cell.Name(), cell.Verdict, cell.Reason, w)
		}
		switch cell.Scenario {
		case "broker-kill":
			if !strings.Contains(cell.Reason, "kill") || !strings.Contains(cell.Reason, hooks) {
				t.Errorf("broker-kill N/A reason does not name the hook and file: %q", cell.Reason)
			}
		case "slow-network":
			if !strings.Contains(cell.Reason, "fault hook latency") || !strings.Contains(cell.Reason, "no tc on this host") {
				t.Errorf("slow-network reason does not name the hook and its output: %q", cell.Reason)
			}
		}
	}
	if res.Cluster == nil || res.Cluster.Brokers != 3 || res.Cluster.KafkaVersion == "" || len(res.Cluster.Bootstrap) == 0 {
		t.Errorf("cluster section: %+v", res.Cluster)
	}
	if left := scTopics(t, c.Bootstrap()); len(left) > 0 {
		t.Errorf("topics left behind: %v", left)
	}
	b, _ := os.ReadFile(filepath.Join(res.Dir, "result.json"))
	if !strings.Contains(string(b), `"kafka_version"`) {
		t.Errorf("result.json has no kafka_version")
	}
}

// TestClusterSectionEmbedded: the embedded backend's report names its
// cluster too (kfake's version guess, broker ids, image).
func TestClusterSectionEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real (embedded) cluster; skipped with -short")
	}
	res := runMatrix(t, Options{Common: harness.Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}, Seed: 3},
		Scenarios: []string{"steady"}, Records: 100})
	c := res.Cluster
	if c == nil || c.KafkaVersion == "" || c.Brokers != 3 || len(c.BrokerIDs) != 3 || !strings.Contains(c.Image, "kfake") {
		t.Fatalf("cluster section: %+v", c)
	}
	for _, f := range []string{"summary.md", "report.html", "junit.xml"} {
		b, _ := os.ReadFile(filepath.Join(res.Dir, f))
		if !strings.Contains(string(b), "kafka") || !strings.Contains(string(b), c.KafkaVersion) {
			t.Errorf("%s does not name the Kafka version %s", f, c.KafkaVersion)
		}
	}
	t.Logf("cluster: %+v", *c)
}
