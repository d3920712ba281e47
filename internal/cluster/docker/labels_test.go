package docker

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

func TestOwnerAlive(t *testing.T) {
	self := os.Getpid()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := dead.Process.Pid
	for _, tc := range []struct {
		name   string
		labels map[string]string
		alive  bool
	}{
		{"this process", map[string]string{LabelPID: strconv.Itoa(self), LabelPIDStart: processStart(self)}, true},
		{"this process, no start label", map[string]string{LabelPID: strconv.Itoa(self)}, true},
		{"pid reused by another process", map[string]string{LabelPID: strconv.Itoa(self), LabelPIDStart: "1"}, false},
		{"exited process", map[string]string{LabelPID: strconv.Itoa(deadPID)}, false},
		{"no pid label", map[string]string{LabelRun: "x"}, false},
		{"garbage pid", map[string]string{LabelPID: "abc"}, false},
	} {
		if got := ownerAlive(tc.labels); got != tc.alive {
			t.Errorf("%s: ownerAlive = %t, want %t", tc.name, got, tc.alive)
		}
	}
}

// TestRemoveStale leaves a dead process's objects and a live one's, and
// checks that only the dead one's go.
func TestRemoveStale(t *testing.T) {
	ctx := context.Background()
	if ok, why := Available(ctx); !ok {
		t.Skipf("docker backend unavailable: %s", why)
	}
	eng, err := newEngine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	run := "test-stale-" + randomHex(3)
	staleLabels := runLabels(run, "toxiproxy", 0)
	staleLabels[LabelPID] = strconv.Itoa(dead.Process.Pid)
	delete(staleLabels, LabelPIDStart)
	liveLabels := runLabels(run, "toxiproxy", 0)

	create := func(name string, labels map[string]string) {
		t.Helper()
		// Created, never started: nothing runs, nothing is published.
		_, err := eng.ContainerCreate(ctx, client.ContainerCreateOptions{
			Name: name, Config: &container.Config{Image: DefaultToxiproxyImage, Labels: labels},
		})
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	create("sharechaos-"+run+"-stale", staleLabels)
	create("sharechaos-"+run+"-live", liveLabels)
	if err := eng.createNetwork(ctx, "sharechaos-"+run+"-stale-net", staleLabels, true); err != nil {
		t.Fatal(err)
	}
	defer eng.removeRun(ctx, run)

	removed, err := RemoveStale(ctx)
	if err != nil {
		t.Fatalf("remove stale: %v", err)
	}
	t.Logf("removed: %v", removed)
	cs, nets, err := eng.labelled(ctx, LabelRun, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || containerName(cs[0]) != "sharechaos-"+run+"-live" {
		t.Errorf("left containers %v, want only the live one", cs)
	}
	if len(nets) != 0 {
		t.Errorf("the stale network survived: %v", nets)
	}
}

// TestClusterIDNeverLooksLikeAFlag: kafka-storage format reads an id starting
// with '-' as a flag, so no cluster id may start with one.
func TestClusterIDNeverLooksLikeAFlag(t *testing.T) {
	for i := 0; i < 2000; i++ {
		if id := newClusterID(); id[0] == '-' || len(id) != 22 {
			t.Fatalf("cluster id %q", id)
		}
	}
}
