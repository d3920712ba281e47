// Package dockertest starts a real Kafka cluster (the docker backend) for a
// package's tests, the same way everywhere: skipped when no engine answers,
// a failure instead when SHARECHAOS_REQUIRE_DOCKER=1 (CI), closed with the
// test. Test support only (a package of its own: the docker package's own
// tests use clustertest, which must not import docker).
package dockertest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster/docker"
)

// Start starts a cluster of brokers named after name, or skips the test:
// under -short (a real cluster takes half a minute to start, and -short is
// what a quick local loop asks for), or when no engine answers.
func Start(t testing.TB, name string, brokers int) *docker.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no real Kafka cluster")
	}
	ctx := context.Background()
	if ok, why := docker.Available(ctx); !ok {
		if os.Getenv("SHARECHAOS_REQUIRE_DOCKER") == "1" {
			t.Fatalf("SHARECHAOS_REQUIRE_DOCKER=1 but the docker backend is not usable: %s", why)
		}
		t.Skipf("docker backend unavailable: %s", why)
	}
	c, err := docker.Start(ctx, docker.Options{Brokers: brokers, RunID: fmt.Sprintf("test-%s-%d", name, os.Getpid()),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if c != nil {
		t.Cleanup(func() {
			if err := c.Close(context.Background()); err != nil {
				t.Errorf("close cluster: %v", err)
			}
		})
	}
	if err != nil {
		t.Fatalf("start cluster: %v", err)
	}
	t.Logf("cluster started in %v", c.StartTime().Round(time.Millisecond))
	return c
}
