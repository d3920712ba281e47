package harness

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/docker/images"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/internal/cluster/external"
)

// Auto picks the docker backend when it is usable, else embedded.
const Auto = "auto"

// StartOptions is what every backend is started with.
type StartOptions struct {
	Brokers int
	// RunID names the run's containers and topics.
	RunID string
	// Dir is the run directory (broker logs go below it).
	Dir string
	// Lock is the acquisition lock, for backends that set it broker-wide.
	Lock time.Duration
	// Flags are the backends' own flags (each backend reads its part).
	Flags BackendFlags
	// Reference is the embedded backend's reference broker (zero: stock
	// kfake); see Common.ChooseEmbeddedBroker.
	Reference embedded.Reference
	// PendingLock is the docker backend's kip1289.pending.lock broker
	// config (--kip1289-pending-lock): what an image with KIP-1289 built in
	// does with a pending record's lock; an image without it ignores the
	// key. Empty: not set (the image's default, expire).
	PendingLock string
	// TxnMaxTimeout raises the broker's transaction.max.timeout.ms for a
	// scenario whose transactions outlive the lock on purpose (embedded caps
	// it at the lock otherwise); 0: the backend's default.
	TxnMaxTimeout time.Duration
	Log           *slog.Logger
}

// Backend is one way to get a cluster: one entry of the registry, which
// --backend, its help, the backends' own flags and their check read.
type Backend struct {
	Name  string
	About string
	// Flags is the part of BackendFlags that is this backend's own (nil:
	// it has none): registered on every command that takes --backend, and
	// checked knowing whether this backend was chosen.
	Flags func(*BackendFlags) backendFlags
	Start func(ctx context.Context, o StartOptions) (cluster.Cluster, error)
}

// BackendFlags are the backends' own flags, a field per backend that has
// any.
type BackendFlags struct {
	Docker   DockerFlags
	External ExternalFlags
}

// backendFlags is one backend's flags.
type backendFlags interface {
	register(fs *flag.FlagSet)
	// check refuses bad values, and values given for a backend that was
	// not chosen where that matters.
	check(chosen bool) error
}

// backends is the registry: a new backend is one package and one line here
// (and its flags' type, if it has flags).
var backends = map[string]Backend{
	embedded.Name: {Name: embedded.Name, About: "franz-go's kfake in a child process behind in-process toxiproxy (nothing but Go needed)",
		Start: startEmbedded},
	external.Name: {Name: external.Name, About: "a cluster the suite did not start (--bootstrap, --client-config, --fault-hooks)",
		Flags: func(f *BackendFlags) backendFlags { return &f.External }, Start: startExternal},
	docker.Name: {Name: docker.Name, About: "Apache Kafka " + images.KafkaVersion + " in containers, every link behind toxiproxy (needs a Docker engine and `make images`)",
		Flags: func(f *BackendFlags) backendFlags { return &f.Docker }, Start: startDocker},
}

// registerBackendFlags registers every backend's own flags on fs.
func registerBackendFlags(fs *flag.FlagSet, f *BackendFlags) {
	for _, n := range BackendChoices()[1:] {
		if b := backends[n]; b.Flags != nil {
			b.Flags(f).register(fs)
		}
	}
}

// checkBackendFlags checks every backend's own flags; chosen is the
// --backend given (auto chooses none yet).
func checkBackendFlags(f BackendFlags, chosen string) error {
	for _, n := range BackendChoices()[1:] {
		if b := backends[n]; b.Flags != nil {
			if err := b.Flags(&f).check(n == chosen); err != nil {
				return err
			}
		}
	}
	return nil
}

// BackendChoices lists auto and every registered backend.
func BackendChoices() []string {
	names := []string{Auto}
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names[1:])
	return names
}

func backendHelp() string {
	var parts []string
	for _, n := range BackendChoices()[1:] {
		parts = append(parts, n+" ("+backends[n].About+")")
	}
	return "auto (docker when an engine answers and the images exist, else embedded), " + strings.Join(parts, ", ")
}

// Choice is the backend a run uses and why (auto's reasoning goes in the
// report).
type Choice struct {
	Name string
	Why  string
}

// ChooseBackend resolves name (auto included).
func ChooseBackend(ctx context.Context, name string) Choice {
	if name != Auto {
		return Choice{name, "asked for with --backend " + name}
	}
	if ok, why := docker.Available(ctx); ok {
		return Choice{docker.Name, "auto: " + why}
	} else {
		return Choice{embedded.Name, "auto: no usable Docker backend (" + why + "); using the embedded kfake cluster"}
	}
}

// StartBackend starts the chosen backend; on error nothing of it is left.
func StartBackend(ctx context.Context, ch Choice, o StartOptions) (cluster.Cluster, error) {
	b, ok := backends[ch.Name]
	if !ok {
		return nil, Usagef("--backend %q: want one of %v", ch.Name, BackendChoices())
	}
	c, err := b.Start(ctx, o)
	if err != nil {
		if c != nil {
			_ = c.Close(context.WithoutCancel(ctx))
		}
		return nil, fmt.Errorf("start %s cluster: %w", ch.Name, err)
	}
	return c, nil
}

func startEmbedded(ctx context.Context, o StartOptions) (cluster.Cluster, error) {
	c, err := embedded.Start(ctx, embedded.Options{
		Brokers: o.Brokers,
		// DataDir empty: a temporary directory that Close removes; the run
		// directory keeps only the broker's log.
		LogPath:       filepath.Join(o.Dir, "embedded-broker.log"),
		RecordLock:    o.Lock,
		Reference:     o.Reference,
		TxnMaxTimeout: o.TxnMaxTimeout,
		BrokerConfigs: map[string]string{
			// A SIGKILLed member keeps its partitions until its session times
			// out (45s by default): nobody else is assigned them meanwhile, so
			// every crash would stall the cell for 45s.
			"group.share.session.timeout.ms":    strconv.Itoa(int(shareSessionTimeout.Milliseconds())),
			"group.share.heartbeat.interval.ms": strconv.Itoa(int(shareHeartbeat.Milliseconds())),
		},
	})
	if c == nil {
		return nil, err
	}
	return c, err
}

// Share-group membership timing for chaos runs on the embedded broker: a
// crashed member's partitions go to the others within shareSessionTimeout.
const (
	shareSessionTimeout = 6 * time.Second
	shareHeartbeat      = time.Second
)

// StartOptionsFor completes o for the chosen backend from the shared
// settings: on embedded, the broker child (ChooseEmbeddedBroker). It returns
// the note that names the broker for the report ("" elsewhere).
func StartOptionsFor(c Common, ch Choice, o StartOptions) (StartOptions, string, error) {
	if ch.Name == docker.Name {
		o.PendingLock = c.PendingLock
		return o, "", nil
	}
	if ch.Name != embedded.Name {
		return o, "", nil
	}
	b, err := c.ChooseEmbeddedBroker()
	if err != nil {
		return o, "", err
	}
	o.Reference = b.Reference
	return o, "broker: " + b.Describe() + " (" + b.Note + ")", nil
}
