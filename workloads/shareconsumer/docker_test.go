package shareconsumer

import (
	"context"
	"github.com/sharechaos/sharechaos/internal/clustertest/dockertest"
	"testing"
	"time"
)

// TestDocker runs the basic guarantees on real Kafka 4.2 (one broker in a
// container): exactly-once consumption by one and by three consumers, a
// RELEASE redelivered with its delivery count incremented, a close that
// releases, read_committed input with control records, and no auto-ack.
// It skips when no Docker engine answers or the images are missing, unless
// SHARECHAOS_REQUIRE_DOCKER=1.
func TestDocker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real Kafka in a container; skipped with -short")
	}
	ctx := context.Background()
	c := dockertest.Start(t, "shareconsumer", 1)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()

	t.Run("exactly-once-one-consumer", func(t *testing.T) {
		f := newFixture(t, ctx, c.Bootstrap(), 3, 1)
		f.produce(t, ctx, 0, 200)
		consumeAll(t, ctx, f, 1, 200)
	})
	t.Run("exactly-once-three-consumers", func(t *testing.T) {
		f := newFixture(t, ctx, c.Bootstrap(), 3, 1)
		f.produce(t, ctx, 0, 300)
		consumeAll(t, ctx, f, 3, 300)
	})
	t.Run("release-redelivers", func(t *testing.T) { testReleaseRedelivers(t, ctx, c.Bootstrap()) })
	t.Run("close-without-ack-redelivers", func(t *testing.T) { testCloseWithoutAck(t, ctx, c.Bootstrap()) })
	t.Run("transactional-input", func(t *testing.T) { testTransactionalInput(t, ctx, c.Bootstrap()) })
	t.Run("no-auto-ack", func(t *testing.T) { testNoAutoAck(t, ctx, c.Bootstrap()) })
	t.Run("rejected-ack-is-reported", func(t *testing.T) { testRejectedAckIsReported(t, ctx, c.Bootstrap()) })
	t.Run("renew-extends-lock", func(t *testing.T) { testRenewExtendsLock(t, ctx, c.Bootstrap()) })
}
