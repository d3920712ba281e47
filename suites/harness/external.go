package harness

import (
	"context"
	"path/filepath"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/internal/clientcfg"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/external"
)

// ExternalFlags are the external backend's settings as given.
type ExternalFlags struct {
	Bootstrap    string // HOST:PORT,...
	ClientConfig string // a properties file
	FaultHooks   string // a YAML file
}

func (e *ExternalFlags) register(fs *flag.FlagSet) {
	// (the backend registry registers them: backend.go)
	fs.StringVar(&e.Bootstrap, "bootstrap", "", "external backend: the cluster's HOST:PORT,...")
	fs.StringVar(&e.ClientConfig, "client-config", "", "external backend: client properties (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location as PEM ...), like Kafka's --command-config")
	fs.StringVar(&e.FaultHooks, "fault-hooks", "", "external backend: YAML file of commands the faults run (kill, start, restart, pause, resume, isolate, disconnect, latency, heal; examples/hooks/)")
}

// check checks the flags against the backend, and reads the files now so
// that a bad one is a usage error naming it before anything runs.
func (e ExternalFlags) check(chosen bool) error {
	if !chosen {
		if e != (ExternalFlags{}) {
			return Usagef("--bootstrap, --client-config and --fault-hooks go with --backend external")
		}
		return nil
	}
	if _, err := e.options(); err != nil {
		return err
	}
	return nil
}

func (e ExternalFlags) options() (external.Options, error) {
	var o external.Options
	for _, a := range strings.Split(e.Bootstrap, ",") {
		if a = strings.TrimSpace(a); a != "" {
			o.Bootstrap = append(o.Bootstrap, a)
		}
	}
	if len(o.Bootstrap) == 0 {
		return o, Usagef("--backend external needs --bootstrap HOST:PORT,...")
	}
	for _, a := range o.Bootstrap {
		if i := strings.LastIndexByte(a, ':'); i <= 0 || i == len(a)-1 {
			return o, Usagef("--bootstrap %q: want HOST:PORT", a)
		}
	}
	if e.ClientConfig != "" {
		c, err := clientcfg.Load(e.ClientConfig)
		if err != nil {
			return o, Usagef("--client-config: %v", err)
		}
		o.Client = c
	}
	if e.FaultHooks != "" {
		h, err := external.LoadHooks(e.FaultHooks)
		if err != nil {
			return o, Usagef("--fault-hooks: %v", err)
		}
		o.Hooks = h
	}
	return o, nil
}

func startExternal(ctx context.Context, o StartOptions) (cluster.Cluster, error) {
	eo, err := o.Flags.External.options()
	if err != nil {
		return nil, err
	}
	eo.Log = o.Log
	if o.Dir != "" {
		eo.HooksLog = filepath.Join(o.Dir, external.HooksLogFile)
	}
	c, err := external.Start(ctx, eo)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// HealCluster undoes what the faults of the cell whose topics start with
// prefix left (the external backend's kills, pauses, cut links and Kafka
// toxics); backends whose faults heal themselves have nothing to do.
func HealCluster(ctx context.Context, c cluster.Cluster, prefix string) error {
	h, ok := c.(interface {
		HealCell(ctx context.Context, prefix string) error
	})
	if !ok {
		return nil
	}
	return h.HealCell(ctx, prefix)
}
