package external

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

func TestUnreachableBootstrapNamesTheAddress(t *testing.T) {
	began := time.Now()
	_, err := Start(context.Background(), Options{Bootstrap: []string{"127.0.0.1:1"}, ReachTimeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("took %s", took)
	}
}

func TestLacksNamesTheMissingHook(t *testing.T) {
	c := &Cluster{o: Options{Hooks: hooksOf(t, "hooks:\n  kill: x\n  start: y\n")}}
	if why := c.Lacks(cluster.CapProcesses); why != "" {
		t.Errorf("processes: %s", why)
	}
	if why := c.Lacks(cluster.CapIsolate); !strings.Contains(why, "isolate") || !strings.Contains(why, "hooks.yaml") {
		t.Errorf("isolate: %q", why)
	}
	if why := c.Lacks(cluster.CapKafkaToxic); !strings.Contains(why, "toxiproxy") {
		t.Errorf("kafka toxic: %q", why)
	}
	none := &Cluster{}
	if why := none.Lacks(cluster.CapProcesses); !strings.Contains(why, "no --fault-hooks") {
		t.Errorf("no hooks: %q", why)
	}
}
