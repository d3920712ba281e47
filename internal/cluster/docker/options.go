package docker

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Options configure a cluster. The zero value is a usable default: three
// brokers, our own images (or those named by the environment), a random run id.
type Options struct {
	// Brokers is the number of brokers, each a combined broker+controller
	// (default 3; 1 is allowed, then internal topics are not replicated).
	Brokers int
	// RunID is the value of the label sharechaos.run on every container and
	// network, and part of their names (default: "run-" and 8 random hex
	// digits). Letters, digits, '.', '_' and '-' only.
	RunID string
	// BrokerConfigs override or extend the brokers' server.properties (see
	// BrokerDefaults); applied to every broker.
	BrokerConfigs map[string]string
	// LogDir, when set, receives every container's log when the cluster is
	// closed (also after a failed Start), before the containers go away.
	LogDir string
	// KafkaImage runs the brokers (default $SHARECHAOS_KAFKA_IMAGE, else
	// DefaultKafkaImage). An image of the apache/kafka kind works too: it
	// reads /mnt/shared/config/server.properties and CLUSTER_ID like ours.
	KafkaImage string
	// Releases are the release KafkaImage carries and the one a rolling
	// upgrade moves the brokers to (SwapRelease).
	Releases Releases
	// ToxiproxyImage runs the proxies (default $SHARECHAOS_TOXIPROXY_IMAGE,
	// else DefaultToxiproxyImage); the upstream Shopify toxiproxy
	// image works too, without our extra toxics.
	ToxiproxyImage string
	// BrokerHeap is each broker's KAFKA_HEAP_OPTS (default "-Xms256m -Xmx512m").
	BrokerHeap string
	// BrokerJIT is the brokers' JIT: JITC1 (the default) or JITFull.
	BrokerJIT string
	// StartTimeout bounds Start from the first container to a share group
	// that consumes (default 4 minutes: three JVMs on two cores).
	StartTimeout time.Duration
	// Security is the brokers' client listener: SecurityPlaintext (the
	// default) or SecuritySASLSSL (SCRAM-SHA-512 over mutual TLS; our images
	// only, which create the SCRAM user at format time: security.go).
	Security string
	// SecurityDir holds the secured listener's client files ("": a
	// temporary directory removed by Close).
	SecurityDir string
	// Standalone labels the cluster's objects so that RemoveStale leaves
	// them alone after the starting process exits (`sharechaos cluster up`;
	// `cluster down` removes them).
	Standalone bool
	// Logger receives progress lines (default: discard). Debug level also
	// gets testcontainers' own lines.
	Logger *slog.Logger
}

// The brokers' JIT. A cluster here lives for minutes on two cores, and
// brokers killed by a fault start cold again: HotSpot's C2 compiler threads
// took 42% of a broker's CPU in the first minutes of a nightly (summed
// /proc/<pid>/task/*/stat by thread name), and with C1 only the three steady
// cells of 1000 records took 22-24 s instead of 38-39 s, cluster start
// 18 s instead of 27 s (txn_total_duration p50 240 ms instead of 460-570
// ms). Peak-optimized code never pays back in runs this short; JITFull is
// there for latency figures meant to be read beside a production JVM's.
const (
	JITC1   = "c1"
	JITFull = "full"
)

// JITs are the choices of Options.BrokerJIT (and of --broker-jit).
var JITs = []string{JITC1, JITFull}

// jitOpts are the JVM flags of each JIT setting, passed as KAFKA_OPTS
// (read by our image's start.sh and by Apache Kafka's kafka-run-class.sh).
var jitOpts = map[string]string{
	JITC1:   "-XX:TieredStopAtLevel=1",
	JITFull: "",
}

// Environment variables that name images in place of ours.
const (
	EnvKafkaImage     = "SHARECHAOS_KAFKA_IMAGE"
	EnvToxiproxyImage = "SHARECHAOS_TOXIPROXY_IMAGE"
)

var runIDPattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// withDefaults fills what the caller left empty and rejects what cannot run.
func (o Options) withDefaults() (Options, error) {
	if o.Brokers == 0 {
		o.Brokers = 3
	}
	if o.Brokers < 1 || o.Brokers > maxBrokers {
		return o, fmt.Errorf("check options: brokers must be 1..%d, got %d", maxBrokers, o.Brokers)
	}
	if o.RunID == "" {
		o.RunID = "run-" + randomHex(4)
	}
	if !runIDPattern.MatchString(o.RunID) {
		return o, fmt.Errorf("check options: run id %q: want letters, digits, '.', '_' or '-'", o.RunID)
	}
	o.KafkaImage = firstNonEmpty(o.KafkaImage, os.Getenv(EnvKafkaImage), DefaultKafkaImage)
	o.ToxiproxyImage = firstNonEmpty(o.ToxiproxyImage, os.Getenv(EnvToxiproxyImage), DefaultToxiproxyImage)
	o.BrokerHeap = firstNonEmpty(o.BrokerHeap, "-Xms256m -Xmx512m")
	o.BrokerJIT = firstNonEmpty(o.BrokerJIT, JITC1)
	if !slices.Contains(JITs, o.BrokerJIT) {
		return o, fmt.Errorf("check options: broker JIT %q: want one of %v", o.BrokerJIT, JITs)
	}
	o.Security = firstNonEmpty(o.Security, SecurityPlaintext)
	if !slices.Contains(Securities, o.Security) {
		return o, fmt.Errorf("check options: broker security %q: want one of %v", o.Security, Securities)
	}
	if o.Security == SecuritySASLSSL && !strings.HasPrefix(o.KafkaImage, "sharechaos/kafka") {
		return o, fmt.Errorf("check options: broker security %s needs one of our Kafka images (their start.sh creates the SCRAM user), not %s", o.Security, o.KafkaImage)
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 4 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return hex.EncodeToString(b)
}
