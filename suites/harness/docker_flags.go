package harness

import (
	"context"
	"path/filepath"
	"slices"

	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/docker"
)

// DockerFlags are the docker backend's own settings as given.
type DockerFlags struct {
	// KafkaImage is the Kafka image to qualify ("": $SHARECHAOS_KAFKA_IMAGE,
	// else ours); BrokerJIT the brokers' JIT (docker.JITs).
	KafkaImage string
	BrokerJIT  string
}

func (d *DockerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.BrokerJIT, "broker-jit", docker.JITC1, "docker backend: the brokers' JIT, c1 (short-lived brokers on few cores: fastest) or full (HotSpot's C2 too, for latency figures beside a production JVM's)")
	fs.StringVar(&d.KafkaImage, "kafka-image", "", "docker backend: the Kafka image to qualify (default $SHARECHAOS_KAFKA_IMAGE, else ours; docker/README.md says what an image must do)")
}

// check refuses a JIT that is not one; the flags are harmless on another
// backend (their defaults are set whatever the backend).
func (d DockerFlags) check(bool) error {
	if d.BrokerJIT != "" && !slices.Contains(docker.JITs, d.BrokerJIT) {
		return Usagef("--broker-jit %q: want one of %v", d.BrokerJIT, docker.JITs)
	}
	return nil
}

// KIP1289PendingLockConfig is the broker config an image with KIP-1289 built
// in reads its pending-lock policy from (kafka-kip1289/README.md); a stock
// image ignores it.
const KIP1289PendingLockConfig = "kip1289.pending.lock"

func startDocker(ctx context.Context, o StartOptions) (cluster.Cluster, error) {
	d := o.Flags.Docker
	var configs map[string]string
	if o.PendingLock != "" {
		configs = map[string]string{KIP1289PendingLockConfig: o.PendingLock}
	}
	c, err := docker.Start(ctx, docker.Options{Brokers: o.Brokers, RunID: "sc-" + o.RunID, KafkaImage: d.KafkaImage, BrokerJIT: d.BrokerJIT,
		BrokerConfigs: configs, LogDir: filepath.Join(o.Dir, "broker-logs"), Logger: o.Log})
	if c == nil {
		return nil, err
	}
	return c, err
}
