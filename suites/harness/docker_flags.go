package harness

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/docker/images"
	"github.com/sharechaos/sharechaos/internal/cluster"
	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/internal/kafkarelease"
)

// DockerFlags are the docker backend's own settings as given.
type DockerFlags struct {
	// KafkaImages are the Kafka images to qualify (none:
	// $SHARECHAOS_KAFKA_IMAGE, else ours): a run or a standalone cluster
	// takes one, a bench compares several (a patched build beside the stock
	// image it was built from); BrokerJIT is the brokers' JIT (docker.JITs).
	KafkaImages []string
	BrokerJIT   string
	// KafkaVersions are the Kafka releases to run, each on our stock image
	// of it (docker.VersionImage; --kafka-version 4.2.2,4.4.0): a run runs
	// every cell on each, one cluster after another; a bench or a
	// standalone cluster takes one. Empty: KafkaImages.
	KafkaVersions []string
	// UpgradeTo is the release rolling-upgrade moves the brokers to
	// (--upgrade-to; "": the newest of KafkaVersions).
	UpgradeTo string
	// BrokerConfigs are KEY=VALUE settings added to every broker's
	// server.properties over the backend's defaults (--broker-config,
	// repeated), e.g. to qualify a build at the settings it ships with.
	BrokerConfigs []string
	// Security is the brokers' client listener (docker.Securities):
	// plaintext, or sasl_ssl (SCRAM-SHA-512 over mutual TLS).
	Security string
}

// Versions are the releases a run goes through, in the order given: [""]
// when none was named (one cluster of the image, cells without a version).
func (d DockerFlags) Versions() []string {
	if len(d.KafkaVersions) == 0 {
		return []string{""}
	}
	return d.KafkaVersions
}

// ForVersion is d for one cluster of the release v ("": d as it is); its
// upgrade target stays the run's.
func (d DockerFlags) ForVersion(v string) DockerFlags {
	d.UpgradeTo = d.upgradeTarget()
	if v != "" {
		d.KafkaVersions = []string{v}
	}
	return d
}

// upgradeTarget is --upgrade-to, else the newest release named.
func (d DockerFlags) upgradeTarget() string {
	if d.UpgradeTo != "" {
		return d.UpgradeTo
	}
	return kafkarelease.Newest(d.KafkaVersions)
}

// releases are the docker cluster's releases: the one it runs (when it
// runs our image of one) and the upgrade target.
func (d DockerFlags) releases() docker.Releases {
	r := docker.Releases{To: d.upgradeTarget()}
	switch {
	case len(d.KafkaVersions) == 1:
		r.From = d.KafkaVersions[0]
	case len(d.KafkaImages) == 0 && os.Getenv(docker.EnvKafkaImage) == "":
		r.From = images.KafkaVersion
	}
	return r
}

// image is the Kafka image a cluster of d runs ("": the backend's default).
func (d DockerFlags) image() string {
	if len(d.KafkaVersions) == 1 {
		return docker.VersionImage(d.KafkaVersions[0])
	}
	if len(d.KafkaImages) == 0 {
		return ""
	}
	return d.KafkaImages[0]
}

// ForImage is d for one cluster of the image i.
func (d DockerFlags) ForImage(i string) DockerFlags {
	d.KafkaImages = []string{i}
	return d
}

func (d *DockerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.BrokerJIT, "broker-jit", docker.JITC1, "docker backend: the brokers' JIT, c1 (short-lived brokers on few cores: fastest) or full (HotSpot's C2 too, for latency figures beside a production JVM's)")
	fs.Var((*ListFlag)(&d.KafkaImages), "kafka-image", "docker backend: the Kafka image to qualify (default $SHARECHAOS_KAFKA_IMAGE, else ours; docker/README.md says what an image must do); bench takes several, comma-separated, and compares them (a patched build beside its stock image)")
	fs.StringArrayVar(&d.BrokerConfigs, "broker-config", nil, "docker backend: KEY=VALUE added to every broker's server.properties over the backend's defaults (repeat it; the keys of the wiring, such as listeners, are refused; reports list the settings)")
	fs.StringVar(&d.Security, "broker-security", docker.SecurityPlaintext, "docker backend: the brokers' client listener, plaintext or sasl_ssl (SCRAM-SHA-512 over mutual TLS: a CA, certificates and a password made fresh per cluster, none of them written into the run directory; our images only)")
	fs.StringVar(&d.UpgradeTo, "upgrade-to", "", "docker backend: the release rolling-upgrade moves the brokers to, on our image of it (default: the newest --kafka-version); an older one tries a downgrade, which Kafka may refuse")
	fs.Var((*ListFlag)(&d.KafkaVersions), "kafka-version", "docker backend: Apache Kafka releases to run, repeated or comma-separated (4.2.2,4.3.2,4.4.0), each on our image of it (make images KAFKA_VERSIONS=\"4.2.2 4.4.0\"); run runs every cell on each, side by side in one report")
}

// check refuses a JIT that is not one, a version that is not a release, a
// version or an image given twice, versions beside --kafka-image, and versions for a backend
// other than docker (auto is checked once it chose: CheckVersionImages);
// the other flags are harmless on another backend (their defaults are set
// whatever the backend).
func (d DockerFlags) check(chosen bool) error {
	if d.BrokerJIT != "" && !slices.Contains(docker.JITs, d.BrokerJIT) {
		return Usagef("--broker-jit %q: want one of %v", d.BrokerJIT, docker.JITs)
	}
	if _, err := d.brokerConfigs(); err != nil {
		return err
	}
	if d.Security != "" && !slices.Contains(docker.Securities, d.Security) {
		return Usagef("--broker-security %q: want one of %v", d.Security, docker.Securities)
	}
	if d.UpgradeTo != "" {
		if err := docker.CheckVersion(d.UpgradeTo); err != nil {
			return Usagef("--upgrade-to: %v", err)
		}
	}
	for i, image := range d.KafkaImages {
		if slices.Contains(d.KafkaImages[:i], image) {
			return Usagef("--kafka-image %s: given twice", image)
		}
	}
	if len(d.KafkaVersions) == 0 {
		return nil
	}
	if len(d.KafkaImages) > 0 {
		return Usagef("--kafka-version and --kafka-image: give one (a version runs our image of it, %s)", docker.VersionImage("VERSION"))
	}
	for i, v := range d.KafkaVersions {
		if err := docker.CheckVersion(v); err != nil {
			return Usagef("--kafka-version: %v", err)
		}
		if slices.Contains(d.KafkaVersions[:i], v) {
			return Usagef("--kafka-version %s: given twice", v)
		}
	}
	return nil
}

// CheckDockerImages refuses, before anything runs, docker settings that
// cannot start: --kafka-version, --upgrade-to, --kafka-image, --broker-config
// or --broker-security on a backend other than docker (backend is the chosen one), and on docker an engine
// that does not answer or an image the run needs that is not on this
// machine (no registry is asked), each named with the command that
// provides it. One rule for every command that starts a docker cluster
// (run, bench, cluster up): a usage error, exit 64, nothing left behind.
func CheckDockerImages(ctx context.Context, d DockerFlags, backend string) error {
	if backend != docker.Name {
		switch {
		case len(d.KafkaVersions) > 0 || d.UpgradeTo != "":
			return Usagef("--kafka-version and --upgrade-to run Kafka releases in containers: they need --backend docker (the run's backend is %s)", backend)
		case len(d.KafkaImages) > 0:
			return Usagef("--kafka-image runs Kafka images in containers: it needs --backend docker (the run's backend is %s)", backend)
		case len(d.BrokerConfigs) > 0:
			return Usagef("--broker-config sets the brokers the docker backend starts: it needs --backend docker (the run's backend is %s)", backend)
		case d.Security != "" && d.Security != docker.SecurityPlaintext:
			return Usagef("--broker-security sets the listener of the brokers the docker backend starts: it needs --backend docker (the run's backend is %s; --client-config reaches a secured external cluster)", backend)
		}
		return nil
	}
	missing, err := docker.MissingImages(ctx, d.neededImages())
	if err != nil {
		return Usagef("--backend docker: %v (start an engine: bash .ci/docker-engine.sh)", err)
	}
	if len(missing) > 0 {
		return Usagef("--backend docker: %s", docker.MissingWhy(missing))
	}
	return nil
}

// neededImages are the images a docker cluster of d runs: each release's
// image and the upgrade target's, else every --kafka-image, else the
// default Kafka image; and toxiproxy's.
func (d DockerFlags) neededImages() []string {
	var kafka []string
	for _, v := range append(slices.Clone(d.KafkaVersions), d.UpgradeTo) {
		if v != "" {
			kafka = append(kafka, docker.VersionImage(v))
		}
	}
	if len(d.KafkaVersions) == 0 {
		kafka = append(kafka, d.KafkaImages...)
		if len(d.KafkaImages) == 0 {
			kafka = append(kafka, cmp.Or(os.Getenv(docker.EnvKafkaImage), docker.DefaultKafkaImage))
		}
	}
	needed := append(kafka, cmp.Or(os.Getenv(docker.EnvToxiproxyImage), docker.DefaultToxiproxyImage))
	slices.Sort(needed)
	return slices.Compact(needed)
}

// KIP1289PendingLockConfig is the broker config an image with KIP-1289 built
// in reads its pending-lock policy from (kafka-kip1289/README.md); a stock
// image ignores it.
const KIP1289PendingLockConfig = "kip1289.pending.lock"

// brokerConfigs are --broker-config's settings, or a usage error naming
// the first that is not KEY=VALUE, is given twice, is the backend's wiring,
// or has a flag of its own.
func (d DockerFlags) brokerConfigs() (map[string]string, error) {
	configs := map[string]string{}
	for _, kv := range d.BrokerConfigs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		switch {
		case !ok || k == "":
			return nil, Usagef("--broker-config %q: want KEY=VALUE", kv)
		case docker.Wired(k):
			return nil, Usagef("--broker-config %s: the docker backend sets it for the cluster's wiring", k)
		case k == KIP1289PendingLockConfig:
			return nil, Usagef("--broker-config %s: use --kip1289-pending-lock", k)
		}
		if _, dup := configs[k]; dup {
			return nil, Usagef("--broker-config %s: given twice", k)
		}
		configs[k] = v
	}
	return configs, nil
}

func startDocker(ctx context.Context, o StartOptions) (cluster.Cluster, error) {
	d := o.Flags.Docker
	configs, err := d.brokerConfigs()
	if err != nil {
		return nil, err
	}
	if o.PendingLock != "" {
		configs[KIP1289PendingLockConfig] = o.PendingLock
	}
	c, err := docker.Start(ctx, docker.Options{Brokers: o.Brokers, RunID: "sc-" + o.RunID, KafkaImage: d.image(), Releases: d.releases(), BrokerJIT: d.BrokerJIT,
		Security: d.Security, BrokerConfigs: configs, LogDir: filepath.Join(o.Dir, "broker-logs"), Logger: o.Log})
	if c == nil {
		return nil, err
	}
	return c, err
}
