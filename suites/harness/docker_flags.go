package harness

import (
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

// CheckVersionImages refuses --kafka-version on a backend other than
// docker, and a version whose image was not built (nothing is run, so the
// user builds it first); backend is the chosen one.
func CheckVersionImages(ctx context.Context, d DockerFlags, backend string) error {
	if len(d.KafkaVersions) == 0 && d.UpgradeTo == "" {
		return nil
	}
	if backend != docker.Name {
		return Usagef("--kafka-version and --upgrade-to run Kafka releases in containers: they need --backend docker (the run's backend is %s)", backend)
	}
	var images []string
	for _, v := range append(slices.Clone(d.KafkaVersions), d.UpgradeTo) {
		if v != "" && !slices.Contains(images, docker.VersionImage(v)) {
			images = append(images, docker.VersionImage(v))
		}
	}
	missing, err := docker.MissingImages(ctx, images)
	if err != nil {
		return Usagef("--kafka-version: %v", err)
	}
	if len(missing) > 0 {
		return Usagef("--kafka-version: image %s missing: build it with make images KAFKA_VERSIONS=\"%s\"",
			strings.Join(missing, ", "), strings.Join(strings.Fields(strings.Join(append(slices.Clone(d.KafkaVersions), d.UpgradeTo), " ")), " "))
	}
	return nil
}

// CheckImages refuses several --kafka-image on a backend other than
// docker, and an image of them that is not there (a bench over images
// checks them all before the first runs).
func CheckImages(ctx context.Context, d DockerFlags, backend string) error {
	if len(d.KafkaImages) == 0 {
		return nil
	}
	if backend != docker.Name {
		return Usagef("--kafka-image runs Kafka images in containers: it needs --backend docker (the run's backend is %s)", backend)
	}
	missing, err := docker.MissingImages(ctx, d.KafkaImages)
	if err != nil {
		return Usagef("--kafka-image: %v", err)
	}
	if len(missing) > 0 {
		return Usagef("--kafka-image: image %s missing (docker/README.md says how to build ours)", strings.Join(missing, ", "))
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
	c, err := docker.Start(ctx, docker.Options{Brokers: o.Brokers, RunID: "sc-" + o.RunID, KafkaImage: d.image(), Releases: d.releases(), BrokerJIT: d.BrokerJIT,
		BrokerConfigs: configs, LogDir: filepath.Join(o.Dir, "broker-logs"), Logger: o.Log})
	if c == nil {
		return nil, err
	}
	return c, err
}
