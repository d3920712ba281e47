package docker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sharechaos/sharechaos/internal/kafkarelease"
)

// CheckVersion refuses a string that is not a release number.
func CheckVersion(v string) error { return kafkarelease.Check(v) }

// VersionImage is our stock image of Apache Kafka release v, as
// docker/images/kafka/build.sh v (make images KAFKA_VERSIONS=...) tags it.
func VersionImage(v string) string { return "sharechaos/kafka:" + v }

// MissingImages names the images of images that the engine does not have
// (no registry is asked); an error when no engine answers.
func MissingImages(ctx context.Context, images []string) ([]string, error) {
	setTestcontainersEnv()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	eng, err := newEngine(ctx)
	if err != nil {
		return nil, fmt.Errorf("find images %s: %w", strings.Join(images, ", "), err)
	}
	defer eng.Close()
	var missing []string
	for _, image := range images {
		if !eng.imageExists(ctx, image) {
			missing = append(missing, image)
		}
	}
	return missing, nil
}
