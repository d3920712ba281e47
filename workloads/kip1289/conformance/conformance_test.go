package conformance_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/internal/cluster/kafkarole"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289/conformance"
)

// target starts brokers of one kind for the cases' settings, reusing one
// when the settings it was started with serve another case too.
type target struct {
	kind conformance.Kind
	// start starts a broker (t is the case that needs it first: its skip or
	// failure) and returns it with what stops it.
	start func(t *testing.T, s conformance.Settings) (conformance.Broker, func())
	// key is what must match for a started broker to serve s.
	key    func(s conformance.Settings) string
	broker map[string]conformance.Broker
}

// brokerFor returns the broker for s, started on first use; it lives until
// the kind's test (owner) ends.
func (tg *target) brokerFor(t, owner *testing.T, s conformance.Settings) conformance.Broker {
	k := tg.key(s)
	if b, ok := tg.broker[k]; ok {
		return b
	}
	b, stop := tg.start(t, s)
	owner.Cleanup(stop)
	tg.broker[k] = b
	return b
}

// TestConformance runs every case of conformance.Cases against the reference
// broker (embedded; skipped unless bin/sharechaos-refbroker is built, which
// `make test` does first) and against Apache Kafka with KIP-1289 (a
// single-broker docker cluster of sharechaos/kafka-kip1289; skipped under
// -short, without an engine or without the image, a failure instead when
// SHARECHAOS_REQUIRE_DOCKER=1).
//
// SHARECHAOS_CONFORMANCE=refbroker (or kafka-kip1289) runs one broker only;
// SHARECHAOS_KIP1289_IMAGE names another image of the patched Kafka.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts brokers")
	}
	for _, tg := range []*target{refTarget(t, ""), kafkaTarget(t)} {
		if only := os.Getenv("SHARECHAOS_CONFORMANCE"); only != "" && only != string(tg.kind) {
			continue
		}
		t.Run(string(tg.kind), func(t *testing.T) {
			owner := t
			for _, c := range conformance.Cases {
				t.Run(c.Name, func(t *testing.T) {
					if c.Only != "" && c.Only != tg.kind {
						t.Skipf("runs on %s only: a failover %s cannot have", c.Only, tg.kind)
					}
					s := c.Settings
					if s.Policy == "" {
						s.Policy = conformance.PolicyExpire
					}
					b := tg.brokerFor(t, owner, s)
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					began := time.Now()
					e, err := conformance.NewEnv(ctx, b, c.Name)
					if err != nil {
						t.Fatal(err)
					}
					defer e.Close()
					if err := c.Run(ctx, e); err != nil {
						t.Fatal(err)
					}
					if c.Differs != "" {
						t.Logf("differs between the brokers, asserted per broker: %s", c.Differs)
					}
					t.Logf("pass in %v (pending lock %s, record lock %v)", time.Since(began).Round(time.Millisecond), s.Policy, s.Lock)
				})
			}
		})
	}
}

// refTarget starts the reference broker, one node per (policy, lock): kfake
// takes the record lock from broker config only. broken names a deliberate
// defect of it (--kip1289-broken), "" for none.
func refTarget(t *testing.T, broken string) *target {
	return &target{
		kind: conformance.Reference,
		key:  func(s conformance.Settings) string { return fmt.Sprint(s.Policy, s.Lock) },
		start: func(t *testing.T, s conformance.Settings) (conformance.Broker, func()) {
			c := harness.Common{Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: "native", PendingLock: s.Policy}.WithDefaults()
			eb, err := c.ChooseEmbeddedBroker()
			if err != nil {
				t.Skipf("the reference broker is not built (make refbroker): %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dir := t.TempDir()
			cl, err := embedded.Start(ctx, embedded.Options{Brokers: 1, DataDir: filepath.Join(dir, "data"),
				LogPath: filepath.Join(dir, "broker.log"), RecordLock: s.Lock, TxnMaxTimeout: 5 * time.Minute,
				Reference: withBroken(eb.Reference, broken)})
			if err != nil {
				t.Fatalf("start the reference broker: %v", err)
			}
			return conformance.Broker{Kind: conformance.Reference, Settings: s, Bootstrap: cl.Bootstrap(),
					Restart: cl.RestartGraceful},
				func() { _ = cl.Close(context.Background()) }
		},
		broker: map[string]conformance.Broker{},
	}
}

func withBroken(r embedded.Reference, broken string) embedded.Reference {
	r.Broken = broken
	return r
}

// TestConformanceCatchesABrokenBroker proves the cases of one request's
// shapes against a reference broker that stages only the first
// share-partition of a TxnShareAcknowledge and answers success for all: each
// must fail, as the mutants prove the checker; a single-partition case must
// still pass on it, so the failures are the defect's.
func TestConformanceCatchesABrokenBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts brokers")
	}
	tg := refTarget(t, "stage-first-partition-only")
	owner := t
	caught := 0
	for _, c := range conformance.Cases {
		shaped := strings.HasPrefix(c.Name, "one-request-") || strings.HasPrefix(c.Name, "several-groups-")
		if !shaped && c.Name != "commit-materializes" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			b := tg.brokerFor(t, owner, c.Settings)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			e, err := conformance.NewEnv(ctx, b, c.Name)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			err = c.Run(ctx, e)
			switch {
			case shaped && err == nil:
				t.Fatalf("passed on a broker that stages only the first share-partition of a request")
			case shaped:
				caught++
				t.Logf("caught: %v", err)
			case err != nil:
				t.Fatalf("a single-partition case failed on the broken broker, whose defect it cannot see: %v", err)
			}
		})
	}
	if caught == 0 && !t.Failed() {
		t.Fatal("no case of one request's shapes ran")
	}
}

// kafkaTarget starts one single-broker cluster of the patched Kafka per
// pending-lock policy (a broker config); the record lock is the group's.
func kafkaTarget(t *testing.T) *target {
	return &target{
		kind: conformance.Kafka,
		key:  func(s conformance.Settings) string { return fmt.Sprint(s.Policy, max(s.Brokers, 1)) },
		start: func(t *testing.T, s conformance.Settings) (conformance.Broker, func()) {
			image := kip1289Image()
			brokers := max(s.Brokers, 1)
			c, stop := startKafka(t, image, fmt.Sprintf("test-conformance-%s-%d-%d", s.Policy, brokers, os.Getpid()), brokers,
				map[string]string{"kip1289.pending.lock": s.Policy}, true)
			t.Logf("patched Kafka %s (pending lock %s, %d brokers) started in %v", image, s.Policy, brokers, c.StartTime().Round(time.Millisecond))
			restart := func(ctx context.Context) error { return c.Restart(ctx, c.Nodes()[0]) }
			return conformance.Broker{Kind: conformance.Kafka, Settings: s, Bootstrap: c.Bootstrap(), LockPerGroup: true,
				Restart: restart, KillLeader: killLeader(c), MoveLeader: moveLeader(c)}, stop
		},
		broker: map[string]conformance.Broker{},
	}
}

// startKafka starts a docker cluster of brokers of image named runID with
// configs, or skips t when the engine or the image is missing (a failure
// instead when required and SHARECHAOS_REQUIRE_DOCKER=1). stop closes it.
func startKafka(t *testing.T, image, runID string, brokers int, configs map[string]string, required bool) (*docker.Cluster, func()) {
	ctx := context.Background()
	skip := func(why string) {
		if required && os.Getenv("SHARECHAOS_REQUIRE_DOCKER") == "1" {
			t.Fatalf("SHARECHAOS_REQUIRE_DOCKER=1 but %s", why)
		}
		t.Skip(why)
	}
	if ok, why := docker.Available(ctx); !ok {
		skip("docker backend unavailable: " + why)
	}
	if ok, err := docker.ImagePresent(ctx, image); !ok {
		skip(fmt.Sprintf("image %s missing (make images): %v", image, err))
	}
	c, err := docker.Start(ctx, docker.Options{Brokers: brokers, RunID: runID, KafkaImage: image,
		BrokerConfigs: configs, LogDir: logDir(t, runID),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		if c != nil {
			_ = c.Close(context.Background())
		}
		t.Fatalf("start %s: %v", image, err)
	}
	return c, func() {
		if err := c.Close(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "close cluster %s: %v\n", runID, err)
		}
	}
}

// killLeader SIGKILLs the leader of a partition of c and returns once
// another broker leads it (the controller fences the dead one after its
// session timeout), with what restarts the killed broker. A leader that
// holds one of spare's roles hands the partition to a broker that holds none
// first (three brokers, two roles: there always is one); then each
// coordinator role of with is moved onto it (its internal topic's partition
// led there), and the kill waits until the cluster says it holds them.
func killLeader(c *docker.Cluster) func(ctx context.Context, topic string, partition int32, spare, with []conformance.Role) (func(context.Context) error, error) {
	return func(ctx context.Context, topic string, partition int32, spare, with []conformance.Role) (func(context.Context) error, error) {
		key := fmt.Sprintf("%s/%d", topic, partition)
		spared := map[cluster.NodeID]bool{}
		for _, r := range spare {
			n, err := c.Coordinator(ctx, r.Kind, r.Key)
			if err != nil {
				return nil, err
			}
			spared[n] = true
		}
		old, err := c.Coordinator(ctx, cluster.CoordLeader, key)
		if err != nil {
			return nil, err
		}
		if spared[old] {
			for _, n := range c.Nodes() {
				if !spared[n] {
					if err := c.MoveLeader(ctx, topic, partition, n); err != nil {
						return nil, fmt.Errorf("move %s off broker %d: %w", key, old, err)
					}
					old = n
					break
				}
			}
		}
		for _, r := range with {
			if err := moveRoleOnto(ctx, c, r, old); err != nil {
				return nil, err
			}
		}
		for _, r := range spare {
			if n, err := c.Coordinator(ctx, r.Kind, r.Key); err != nil || n == old {
				return nil, fmt.Errorf("%s %s is on the broker to kill (%d) after the moves: %v", r.Kind, r.Key, old, err)
			}
		}
		if err := c.Kill(ctx, old); err != nil {
			return nil, err
		}
		restart := func(ctx context.Context) error { return c.Restart(ctx, old) }
		err = conformance.Eventually(ctx, time.Minute, func() error {
			now, err := c.Coordinator(ctx, cluster.CoordLeader, key)
			if err == nil && now == old {
				err = fmt.Errorf("%s still led by the killed broker %d", key, old)
			}
			return err
		})
		return restart, err
	}
}

// moveLeader hands a partition's leadership to the next broker after its
// leader.
func moveLeader(c *docker.Cluster) func(ctx context.Context, topic string, partition int32) error {
	return func(ctx context.Context, topic string, partition int32) error {
		old, err := c.Coordinator(ctx, cluster.CoordLeader, fmt.Sprintf("%s/%d", topic, partition))
		if err != nil {
			return err
		}
		nodes := c.Nodes()
		if len(nodes) < 2 {
			return fmt.Errorf("move the leader of %s/%d: one broker", topic, partition)
		}
		next := nodes[(slices.Index(nodes, old)+1)%len(nodes)]
		return c.MoveLeader(ctx, topic, partition, next)
	}
}

// moveRoleOnto makes node hold a coordinator role: the leader of the
// partition of its internal topic that holds the key (as many partitions as
// BrokerDefaults give), and waits until FindCoordinator says so.
func moveRoleOnto(ctx context.Context, c *docker.Cluster, r conformance.Role, node cluster.NodeID) error {
	topic, setting, ok := kafkarole.CoordinatorTopic(r.Kind)
	if !ok {
		return fmt.Errorf("cannot move a %s role onto a broker", r.Kind)
	}
	n, err := strconv.Atoi(docker.BrokerDefaults(len(c.Nodes()))[setting])
	if err != nil {
		return fmt.Errorf("partitions of %s: %w", topic, err)
	}
	p := kafkarole.CoordinatorPartition(r.Key, n)
	if err := c.MoveLeader(ctx, topic, p, node); err != nil {
		return fmt.Errorf("move %s/%d (%s %s) onto broker %d: %w", topic, p, r.Kind, r.Key, node, err)
	}
	return conformance.Eventually(ctx, 30*time.Second, func() error {
		now, err := c.Coordinator(ctx, r.Kind, r.Key)
		if err == nil && now != node {
			err = fmt.Errorf("%s %s on broker %d, not %d", r.Kind, r.Key, now, node)
		}
		return err
	})
}

// kip1289Image is the image the Kafka half runs: $SHARECHAOS_KIP1289_IMAGE
// (another build of the patched Kafka, e.g. one tagged apart from the image
// other checkouts on the machine build under the same name), else
// docker.KIP1289KafkaImage.
func kip1289Image() string {
	if image := os.Getenv("SHARECHAOS_KIP1289_IMAGE"); image != "" {
		return image
	}
	return docker.KIP1289KafkaImage
}

// logDir keeps the brokers' logs when SHARECHAOS_CONFORMANCE_LOGS names a
// directory (they go with the containers otherwise).
func logDir(t *testing.T, runID string) string {
	d := os.Getenv("SHARECHAOS_CONFORMANCE_LOGS")
	if d == "" {
		return ""
	}
	return filepath.Join(d, strings.ReplaceAll(runID, "/", "-"))
}
