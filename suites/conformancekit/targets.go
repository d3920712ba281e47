package conformancekit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/suites/harness"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
	"github.com/sharechaos/sharechaos/workloads/kip1289/conformance"
	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// target gives each case a broker with the settings it needs: the kit's own
// brokers are started on first use, one per set of settings, and live until
// the run ends; an external cluster is one, and a case that needs other
// settings than it has is N/A.
type target interface {
	// broker is the broker for s, or why the target cannot give one (N/A).
	broker(ctx context.Context, s conformance.Settings) (b conformance.Broker, na string, err error)
	describe() string
	// kind is the implementation the broker's negotiation showed ("" before
	// the first broker).
	kind() conformance.Kind
	close()
}

func newTarget(ctx context.Context, o Options) (target, error) {
	switch o.Backend {
	case "embedded":
		c := harness.Common{Modes: []ctp.AckMode{ctp.Transactional}, TxnAcks: "native", PendingLock: conformance.PolicyExpire,
			KIP1289Keys: o.Keys}.WithDefaults()
		eb, err := c.ChooseEmbeddedBroker()
		if err != nil {
			return nil, err
		}
		if eb.Reference.Binary == "" {
			return nil, harness.Usagef("--backend embedded runs the kit on the reference broker, which is not used here: %s", eb.Note)
		}
		tmp, err := os.MkdirTemp("", "sharechaos-conformance-")
		if err != nil {
			return nil, err
		}
		return &ownTarget{o: o, what: "the reference broker " + eb.Reference.Binary, tmp: tmp, started: map[string]conformance.Broker{},
			start: func(ctx context.Context, s conformance.Settings, key string) (conformance.Broker, func(), error) {
				ref := eb.Reference
				ref.PendingLock = s.Policy
				cl, err := embedded.Start(ctx, embedded.Options{Brokers: 1, DataDir: filepath.Join(tmp, key),
					LogPath: filepath.Join(o.Out, "brokers", "refbroker-"+key+".log"), RecordLock: s.Lock,
					TxnMaxTimeout: 5 * time.Minute, Reference: ref})
				if err != nil {
					return conformance.Broker{}, nil, err
				}
				restart := func(ctx context.Context, _ string, _ int32) error { return cl.RestartGraceful(ctx) }
				one := "the reference broker is one process"
				return conformance.Broker{Kind: conformance.Reference, Settings: s, Bootstrap: cl.Bootstrap(), Keys: o.Keys,
						Restart: restart, Lacks: map[conformance.Need]string{conformance.NeedKill: one, conformance.NeedMove: one}},
					func() { _ = cl.Close(context.Background()) }, nil
			}}, nil
	case "docker":
		image := o.KafkaImage
		if image == "" {
			image = docker.KIP1289KafkaImage
		}
		toxiproxy := docker.DefaultToxiproxyImage
		if env := os.Getenv(docker.EnvToxiproxyImage); env != "" {
			toxiproxy = env
		}
		missing, err := docker.MissingImages(ctx, []string{image, toxiproxy})
		if err != nil {
			return nil, harness.Usagef("--backend docker: %v (start an engine: bash .ci/docker-engine.sh)", err)
		}
		if len(missing) > 0 {
			return nil, harness.Usagef("--backend docker: %s", docker.MissingWhy(missing))
		}
		return &ownTarget{o: o, what: image, started: map[string]conformance.Broker{},
			start: func(ctx context.Context, s conformance.Settings, key string) (conformance.Broker, func(), error) {
				brokers := max(s.Brokers, 1)
				c, err := docker.Start(ctx, docker.Options{Brokers: brokers, RunID: fmt.Sprintf("conformance-%d-%s", os.Getpid(), key),
					KafkaImage: image, BrokerConfigs: map[string]string{"kip1289.pending.lock": s.Policy},
					LogDir: filepath.Join(o.Out, "brokers", key), Logger: o.Log})
				if err != nil {
					if c != nil {
						_ = c.Close(context.WithoutCancel(ctx))
					}
					return conformance.Broker{}, nil, err
				}
				f := conformance.FailoversOf(c)
				return conformance.Broker{Kind: conformance.Kafka, Settings: s, Bootstrap: c.Bootstrap(), LockPerGroup: true, Keys: o.Keys,
						Restart: f.Restart, KillLeader: f.KillLeader, MoveLeader: f.MoveLeader, Lacks: f.Lacks},
					func() { _ = c.Close(context.Background()) }, nil
			}}, nil
	}
	return newExternalTarget(ctx, o)
}

// ownTarget starts brokers of its own, one per settings key.
type ownTarget struct {
	o       Options
	what    string
	tmp     string
	started map[string]conformance.Broker
	stops   []func()
	k       conformance.Kind
	start   func(ctx context.Context, s conformance.Settings, key string) (conformance.Broker, func(), error)
}

func (t *ownTarget) broker(ctx context.Context, s conformance.Settings) (conformance.Broker, string, error) {
	key := fmt.Sprintf("%s-%s-%d", s.Policy, s.Lock, max(s.Brokers, 1))
	if b, ok := t.started[key]; ok {
		return b, "", nil
	}
	b, stop, err := t.start(ctx, s, key)
	if err != nil {
		return b, "", err
	}
	t.stops = append(t.stops, stop)
	if err := t.speaks(ctx, b); err != nil {
		return b, "", err
	}
	t.started[key] = b
	return b, "", nil
}

// speaks checks that b serves both KIP-1289 APIs; a broker that does not is
// a usage error naming what it lacks.
func (t *ownTarget) speaks(ctx context.Context, b conformance.Broker) error {
	k, err := negotiate(ctx, b.Bootstrap, b.ClientOpts, t.o.Keys)
	t.k = k
	return err
}

func (t *ownTarget) describe() string       { return t.what }
func (t *ownTarget) kind() conformance.Kind { return t.k }

func (t *ownTarget) close() {
	for i := len(t.stops) - 1; i >= 0; i-- {
		t.stops[i]()
	}
	if t.tmp != "" {
		_ = os.RemoveAll(t.tmp)
	}
}

// externalTarget is a cluster the kit did not start: its failovers are the
// fault hooks', its pending-lock policy what the operator says it is.
type externalTarget struct {
	o Options
	c cluster.Cluster
	b conformance.Broker
}

func newExternalTarget(ctx context.Context, o Options) (target, error) {
	ch := harness.Choice{Name: "external", Why: "asked for with --backend external"}
	c, err := harness.StartBackend(ctx, ch, harness.StartOptions{RunID: fmt.Sprintf("conformance-%d", os.Getpid()), Dir: o.Out,
		Flags: harness.BackendFlags{External: o.External}, Log: o.Log})
	if err != nil {
		return nil, err
	}
	opts := cluster.ClientOpts(c)
	k, err := negotiate(ctx, c.Bootstrap(), opts, o.Keys)
	if err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	f := conformance.FailoversOf(c)
	b := conformance.Broker{Kind: k, Bootstrap: c.Bootstrap(), ClientOpts: opts, Keys: o.Keys,
		// Kafka sets the record lock per group; the reference broker only
		// per broker (its operator's --record-lock), which the kit cannot
		// change.
		LockPerGroup: k == conformance.Kafka,
		Restart:      f.Restart, KillLeader: f.KillLeader, MoveLeader: f.MoveLeader, Lacks: f.Lacks}
	return &externalTarget{o: o, c: c, b: b}, nil
}

func (t *externalTarget) broker(_ context.Context, s conformance.Settings) (conformance.Broker, string, error) {
	if s.PolicyMatters() && s.Policy != t.o.PendingLock {
		return t.b, fmt.Sprintf("needs a broker whose pending lock is %s; this one's is %s (--kip1289-pending-lock says what the cluster was configured with)", s.Policy, t.o.PendingLock), nil
	}
	if n := len(t.c.Nodes()); n < max(s.Brokers, 1) {
		return t.b, fmt.Sprintf("needs %d brokers, the cluster has %d", s.Brokers, n), nil
	}
	if !t.b.LockPerGroup && s.Lock != conformance.LongLock {
		return t.b, fmt.Sprintf("needs a record lock of %v, which a %s sets per broker only", s.Lock, t.b.Kind), nil
	}
	b := t.b
	b.Settings = s
	b.Settings.Policy = t.o.PendingLock
	return b, "", nil
}

func (t *externalTarget) describe() string       { return "external " + strings.Join(t.c.Bootstrap(), ",") }
func (t *externalTarget) kind() conformance.Kind { return t.b.Kind }
func (t *externalTarget) close()                 { _ = t.c.Close(context.Background()) }

// negotiate asks the brokers for KIP-1289's APIs: the implementation they
// are (v0 routes to the share coordinator as the KIP is written, v1 to the
// leader as the patched Kafka), or a usage error naming what is missing.
func negotiate(ctx context.Context, bootstrap []string, opts []kgo.Opt, keys kip1289.APIKeys) (conformance.Kind, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap...)}, opts...)...)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	nctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := kip1289.Negotiate(nctx, cl, keys)
	if err != nil {
		return "", fmt.Errorf("ask %s for KIP-1289's APIs: %w", strings.Join(bootstrap, ","), err)
	}
	if !s.Native {
		return "", harness.Usagef("the brokers at %s do not speak KIP-1289: missing %s (--kip1289-keys names the keys they serve it at)",
			strings.Join(bootstrap, ","), strings.Join(s.Missing, ", "))
	}
	if s.TxnShareAcknowledgeVersion == wire.TxnShareAcknowledgeToLeader {
		return conformance.Kafka, nil
	}
	return conformance.Reference, nil
}
