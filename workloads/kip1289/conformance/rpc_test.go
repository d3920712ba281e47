package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/sharechaos/sharechaos/internal/clustertest"
)

// The harness's leader lookup waits for a leader through a failover, but a
// topic or partition the metadata does not know fails the case at once (after
// the grace a new topic gets), not at the case's timeout.
func TestLeaderOfWhatDoesNotExistFailsEarly(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "in"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := clustertest.Context(t, time.Minute)
	r := &rpc{cl: clustertest.Client(t, c.ListenAddrs())}
	if _, err := r.leader(ctx, "in", 0); err != nil {
		t.Fatalf("leader of in/0: %v", err)
	}
	for _, tc := range []struct {
		topic     string
		partition int32
	}{{"missing", 0}, {"in", 3}} {
		_, err := r.leader(ctx, tc.topic, tc.partition)
		if err == nil || !strings.Contains(err.Error(), "does not know") || ctx.Err() != nil {
			t.Errorf("leader of %s/%d: %v (context: %v), want 'does not know' before the deadline", tc.topic, tc.partition, err, ctx.Err())
		}
	}
}
