package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/sharechaos/sharechaos/result"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/docker"
)

// TestClusterUpExternalDown: `cluster up` starts the docker cluster
// standalone; the external backend runs the smoke cells and a broker kill
// through the generated hooks against it and they pass as on --backend
// docker; a fault whose hook is missing is N/A naming it; no sc-* topic is
// left; `cluster down` leaves no container or network. Needs a Docker
// engine (skipped without one unless SHARECHAOS_REQUIRE_DOCKER=1); run it
// under flock /tmp/sharechaos-docker.lock.
func TestClusterUpExternalDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real Kafka in containers; skipped with -short")
	}
	if ok, why := docker.Available(context.Background()); !ok {
		if os.Getenv("SHARECHAOS_REQUIRE_DOCKER") == "1" {
			t.Fatalf("SHARECHAOS_REQUIRE_DOCKER=1 but the docker backend is not usable: %s", why)
		}
		t.Skipf("no docker backend (%s)", why)
	}
	// The hooks call this test binary as sharechaos (TestMain).
	t.Setenv("SHARECHAOS_TEST_MAIN", "1")
	dir := filepath.Join(t.TempDir(), "cluster")
	var out, errb bytes.Buffer
	if code := mainCode([]string{"cluster", "up", "--brokers", "3", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("cluster up: exit %d: %s", code, errb.String())
	}
	st, err := docker.LoadStandalone(dir)
	if err != nil {
		t.Fatal(err)
	}
	down := func() {
		var o, e bytes.Buffer
		if code := mainCode([]string{"cluster", "down", dir}, &o, &e); code != 0 {
			t.Errorf("cluster down: exit %d: %s", code, e.String())
		}
	}
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join(dir, docker.StateFile)); err == nil {
			down()
		}
	})
	bootstrap, _ := os.ReadFile(filepath.Join(dir, docker.BootstrapFile))
	bs := strings.TrimSpace(string(bootstrap))

	// A hooks file without the network hooks: partition is N/A naming it.
	full, _ := os.ReadFile(filepath.Join(dir, docker.HooksFile))
	var kept []string
	for _, l := range strings.Split(string(full), "\n") {
		if !strings.HasPrefix(l, "  isolate:") {
			kept = append(kept, l)
		}
	}
	partial := filepath.Join(t.TempDir(), "hooks-no-isolate.yaml")
	if err := os.WriteFile(partial, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}

	runDir := filepath.Join(t.TempDir(), "run")
	out.Reset()
	errb.Reset()
	code := mainCode([]string{"run", "--backend", "external", "--bootstrap", bs, "--fault-hooks", partial,
		"--scenario", "steady,crash-after-commit,crash-after-acks,broker-kill,partition", "--mode", "transactional,explicit",
		"--records", "600", "--seed", "21", "--out", runDir}, &out, &errb)
	t.Logf("run: exit %d\n%s", code, out.String())
	b, err := os.ReadFile(filepath.Join(runDir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res result.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Runs {
		want := "PASS"
		if c.Scenario == "partition" || (c.Scenario == "crash-after-acks" && c.Mode == "explicit") {
			want = "N/A"
		}
		if string(c.Verdict) != want {
			t.Errorf("%s: %s (%s), want %s", c.Name(), c.Verdict, c.Reason, want)
		}
		if c.Scenario == "partition" && !strings.Contains(c.Reason, "isolate") {
			t.Errorf("partition N/A reason does not name the isolate hook: %q", c.Reason)
		}
	}
	if res.Cluster == nil || res.Cluster.Brokers != 3 || !strings.HasPrefix(res.Cluster.KafkaVersion, "v4") {
		t.Errorf("cluster section: %+v", res.Cluster)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	topics, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range topics.Names() {
		if strings.HasPrefix(n, "sc-") {
			t.Errorf("topic left behind: %s", n)
		}
	}
	groups, err := kadm.NewClient(cl).ListGroups(ctx)
	if err == nil {
		for _, g := range groups.Groups() {
			if strings.HasPrefix(g, "sc-") {
				t.Errorf("group left behind: %s", g)
			}
		}
	}
	cl.Close()

	down()
	for _, kind := range []string{"ps", "network"} {
		args := []string{kind, "ls", "-q", "--filter", "label=" + docker.LabelStandalone + "=" + st.RunID}
		if kind == "ps" {
			args = []string{"ps", "-aq", "--filter", "label=" + docker.LabelStandalone + "=" + st.RunID}
		}
		left, err := exec.Command("docker", args...).Output()
		if err != nil {
			t.Logf("docker %s: %v", kind, err)
			continue
		}
		if s := strings.TrimSpace(string(left)); s != "" {
			t.Errorf("left after cluster down (%s): %s", kind, s)
		}
	}
}
