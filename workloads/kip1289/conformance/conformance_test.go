package conformance_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
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
					s := c.Settings
					if s.Policy == "" {
						s.Policy = conformance.PolicyExpire
					}
					b := tg.brokerFor(t, owner, s)
					if why := b.Missing(c); why != "" {
						t.Skipf("N/A: %s", why)
					}
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
			restart := func(ctx context.Context, _ string, _ int32) error { return cl.RestartGraceful(ctx) }
			return conformance.Broker{Kind: conformance.Reference, Settings: s, Bootstrap: cl.Bootstrap(), Restart: restart,
					Lacks: map[conformance.Need]string{conformance.NeedKill: "the reference broker is one process", conformance.NeedMove: "the reference broker is one process"}},
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
			f := conformance.FailoversOf(c)
			return conformance.Broker{Kind: conformance.Kafka, Settings: s, Bootstrap: c.Bootstrap(), LockPerGroup: true,
				Restart: f.Restart, KillLeader: f.KillLeader, MoveLeader: f.MoveLeader, Lacks: f.Lacks}, stop
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
