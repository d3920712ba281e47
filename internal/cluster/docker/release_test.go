package docker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/clustertest"
)

// TestSwapRelease: one broker on 4.2.2 moves to 4.4.0 on its own data (a
// record written before is read after, the broker logs 4.4.0) and back to
// 4.2.2 while the feature levels are 4.2's; once metadata.version is
// finalized at 4.4's, a move back to 4.2.2 is refused by Kafka and the
// broker runs 4.4.0 again, the record still there: never half done. Needs both images (make images
// KAFKA_VERSIONS="4.2.2 4.4.0"); skipped without them.
func TestSwapRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no real Kafka cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if missing, err := MissingImages(ctx, []string{VersionImage("4.2.2"), VersionImage("4.4.0")}); err != nil || len(missing) > 0 {
		t.Skipf("images of 4.2.2 and 4.4.0: missing %v (%v)", missing, err)
	}
	c := startCluster(t, Options{Brokers: 1, KafkaImage: VersionImage("4.2.2"), Releases: Releases{From: "4.2.2", To: "4.4.0"}})
	cl := clustertest.Client(t, c.Bootstrap())
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "swap"); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "swap", Value: []byte("before")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	logged, err := c.SwapRelease(ctx, 1, "4.4.0")
	if err != nil || logged != "4.4.0" {
		t.Fatalf("swap to 4.4.0: logged %q, %v", logged, err)
	}
	readBack(ctx, t, c)
	// Before the feature levels are finalized the old release still reads
	// the data: an operator may roll back.
	if logged, err := c.SwapRelease(ctx, 1, "4.2.2"); err != nil || logged != "4.2.2" {
		t.Fatalf("roll back to 4.2.2 before finalizing: logged %q, %v", logged, err)
	}
	if _, err := c.SwapRelease(ctx, 1, "4.4.0"); err != nil {
		t.Fatalf("swap to 4.4.0 again: %v", err)
	}
	finalizeMetadata(ctx, t, cl)
	_, err = c.SwapRelease(ctx, 1, "4.2.2")
	var refused *cluster.RefusedError
	if !errors.As(err, &refused) || !refused.RolledBack || refused.Reason == "" {
		t.Fatalf("swap back to 4.2.2 after finalizing: %v, want refused and rolled back with Kafka's reason", err)
	}
	t.Logf("refused: %v", refused)
	if got := c.brokerRelease(1); got != "4.4.0" {
		t.Errorf("after the refusal the broker runs %s, want 4.4.0", got)
	}
	readBack(ctx, t, c)
}

// readBack reads the test's record through a new client.
func readBack(ctx context.Context, t *testing.T, c *Cluster) {
	t.Helper()
	cl := clustertest.Client(t, c.Bootstrap(), kgo.ConsumeTopics("swap"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	fs := cl.PollFetches(rctx)
	if err := fs.Err0(); err != nil {
		t.Fatalf("read back: %v", err)
	}
	if fs.NumRecords() != 1 || string(fs.Records()[0].Value) != "before" {
		t.Fatalf("read back %d records, want the one written before the swap", fs.NumRecords())
	}
}

// finalizeMetadata raises metadata.version to the highest level the broker
// supports, as kafka-features.sh upgrade does.
func finalizeMetadata(ctx context.Context, t *testing.T, cl *kgo.Client) {
	t.Helper()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("api versions: %v", err)
	}
	for _, f := range resp.SupportedFeatures {
		if f.Name == "metadata.version" {
			res, err := kadm.NewClient(cl).UpdateFeatures(ctx, false, kadm.FeatureUpdate{Feature: f.Name, MaxVersionLevel: f.MaxVersion, UpgradeType: 1})
			if err == nil {
				err = res.Error()
			}
			if err != nil {
				t.Fatalf("finalize metadata.version %d: %v", f.MaxVersion, err)
			}
			return
		}
	}
	t.Fatal("the broker supports no metadata.version")
}
