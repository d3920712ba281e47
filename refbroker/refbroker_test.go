package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// refBinary builds this package's binary once per test run (against the
// patched kfake of build/kfake-kip1289, as the module's replace says).
func refBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SHARECHAOS_REFBROKER"); p != "" {
		return p
	}
	bin := filepath.Join(t.TempDir(), "sharechaos-refbroker")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build reference broker: %v\n%s", err, out)
	}
	return bin
}

// The embedded cluster starts the reference broker in place of itself, the
// brokers advertise both RPCs, and still do after a graceful restart.
func TestEmbeddedReferenceBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	c, err := embedded.Start(ctx, embedded.Options{
		Brokers: 3, DataDir: filepath.Join(dir, "data"), LogPath: filepath.Join(dir, "broker.log"),
		Reference: embedded.Reference{Binary: refBinary(t), PendingLock: "hold"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())

	negotiate := func(when string) {
		t.Helper()
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kip1289.DefaultAPIKeys().ClientOpt())
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		s, err := kip1289.Negotiate(ctx, cl, kip1289.DefaultAPIKeys())
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if !s.Native || s.Brokers != 3 {
			t.Errorf("%s: support %+v, want native on 3 brokers", when, s)
		}
	}
	negotiate("after start")
	if err := c.RestartGraceful(ctx); err != nil {
		t.Fatal(err)
	}
	negotiate("after a graceful restart")
	log, _ := os.ReadFile(c.LogPath())
	if !strings.Contains(string(log), "pending lock hold") {
		t.Errorf("broker log does not show the pending-lock policy:\n%s", log)
	}
}
