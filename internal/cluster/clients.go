package cluster

import (
	"github.com/twmb/franz-go/pkg/kgo"
	"time"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
)

// Clients is a cluster whose clients need settings beyond its bootstrap
// (TLS, SASL: the external backend). Every client the suite creates takes
// them: in-process ones through ClientOpts, worker processes through the
// ClientConfig in their config.
type Clients interface {
	// ClientConfig is the settings as data, for worker processes.
	ClientConfig() clientcfg.Config
	// ClientOpts is the same as kgo options, built (files read) once when
	// the cluster started.
	ClientOpts() []kgo.Opt
}

// ClientConfigOf is c's client settings: the zero Config (PLAINTEXT) for a
// backend without any.
func ClientConfigOf(c Cluster) clientcfg.Config {
	if cc, ok := c.(Clients); ok {
		return cc.ClientConfig()
	}
	return clientcfg.Config{}
}

// ClientOpts is c's client settings as kgo options (none for a backend
// without any), to append to a client's own.
func ClientOpts(c Cluster) []kgo.Opt {
	if cc, ok := c.(Clients); ok {
		return cc.ClientOpts()
	}
	return nil
}

// harnessMetadataMinAge is how stale the harness's clients let metadata be.
const harnessMetadataMinAge = 250 * time.Millisecond

// NewClient builds a client of c: its bootstrap, its client settings, then
// opts.
func NewClient(c Cluster, opts ...kgo.Opt) (*kgo.Client, error) {
	// kgo caches what metadata says for its MetadataMinAge, 5 s by default:
	// a harness client that asks whether a topic it just created has
	// leaders, or where a leader it just moved went, would wait that out
	// (seen: topic setup 5.5 s in one cell of four on Kafka 4.2.2).
	base := []kgo.Opt{kgo.SeedBrokers(c.Bootstrap()...), kgo.MetadataMinAge(harnessMetadataMinAge)}
	return kgo.NewClient(append(append(base, ClientOpts(c)...), opts...)...)
}
