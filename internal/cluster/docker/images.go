package docker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/sharechaos/sharechaos/docker/images"
)

// The images docker/build-images.sh builds. KIP1289KafkaImage is Apache
// Kafka with KIP-1289 built in; StockKIP1289KafkaImage is the stock image of
// the same version, to compare it with.
var (
	KIP1289KafkaImage      = "sharechaos/kafka-kip1289:" + images.KIP1289KafkaVersion
	StockKIP1289KafkaImage = "sharechaos/kafka:" + images.KIP1289KafkaVersion
	// ToolImage is the tool itself (docker/images/sharechaos): the CLI as
	// the entry point, the reference broker and the Java worker beside it.
	ToolImage             = "sharechaos/sharechaos:latest"
	DefaultKafkaImage     = "sharechaos/kafka:" + images.KafkaVersion
	DefaultToxiproxyImage = "sharechaos/toxiproxy:2.12.0"
)

// Available says whether the docker backend can run here: an engine answers
// and both images exist locally (no registry is asked). why explains a false
// answer in words fit for a report, e.g. for --backend auto.
func Available(ctx context.Context) (ok bool, why string) {
	setTestcontainersEnv()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	eng, err := newEngine(ctx)
	if err != nil {
		return false, fmt.Sprintf("no Docker engine answers: %v", err)
	}
	defer eng.Close()
	images := []string{
		firstNonEmpty(os.Getenv(EnvKafkaImage), DefaultKafkaImage),
		firstNonEmpty(os.Getenv(EnvToxiproxyImage), DefaultToxiproxyImage),
	}
	var missing []string
	for _, image := range images {
		if !eng.imageExists(ctx, image) {
			missing = append(missing, image)
		}
	}
	if len(missing) > 0 {
		return false, fmt.Sprintf("image %s missing (build with: bash docker/build-images.sh)",
			strings.Join(missing, " and "))
	}
	return true, fmt.Sprintf("Docker engine answers; images %s present", strings.Join(images, " and "))
}

// ImagePresent says whether image exists on this machine's engine (no
// registry is asked): what a caller that starts a cluster with
// Options.KafkaImage checks first, e.g. a test that skips without the
// KIP-1289 image.
func ImagePresent(ctx context.Context, image string) (bool, error) {
	setTestcontainersEnv()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	eng, err := newEngine(ctx)
	if err != nil {
		return false, err
	}
	defer eng.Close()
	return eng.imageExists(ctx, image), nil
}

// setTestcontainersEnv sets what testcontainers needs on these machines
// unless the caller chose otherwise: no reaper (its image cannot be pulled;
// we clean up by label ourselves), and the engine's ports reached on
// 127.0.0.1 (these machines look like containers, so testcontainers would
// otherwise dial the default gateway).
//
// It also sends testcontainers' process-wide log lines (its "Connected to
// docker" banner) to slog at debug level: this package is the project's only
// user of testcontainers, and a CLI should not print them.
func setTestcontainersEnv() {
	quietTestcontainers.Do(func() {
		tclog.SetDefault(tcLogger{Options{Logger: slog.Default()}})
	})
	for key, value := range map[string]string{
		"TESTCONTAINERS_RYUK_DISABLED": "true",
		"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1",
	} {
		if _, set := os.LookupEnv(key); !set {
			_ = os.Setenv(key, value)
		}
	}
}

var quietTestcontainers sync.Once

// tcLogger passes testcontainers' printf lines to the cluster's logger at
// debug level.
type tcLogger struct{ opts Options }

func (l tcLogger) Printf(format string, v ...any) {
	l.opts.Logger.Debug(strings.TrimSpace(fmt.Sprintf(format, v...)), "component", "testcontainers")
}

var _ tclog.Logger = tcLogger{}
