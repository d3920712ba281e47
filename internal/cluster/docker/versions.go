package docker

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// versionPattern is a release as Maven Central names Kafka's: 4.2.2, 4.4.0,
// 4.3.0-rc1. Nothing else may reach an image tag or a build script.
var versionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// CheckVersion refuses a string that is not a release number.
func CheckVersion(v string) error {
	if !versionPattern.MatchString(v) {
		return fmt.Errorf("kafka version %q: want a release such as 4.2.2 or 4.4.0", v)
	}
	return nil
}

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

// CompareReleases orders two releases (CheckVersion's form): -1, 0 or 1.
// A release candidate ("4.4.0-rc1") comes before its release.
func CompareReleases(a, b string) int {
	an, as, _ := strings.Cut(a, "-")
	bn, bs, _ := strings.Cut(b, "-")
	ap, bp := strings.Split(an, "."), strings.Split(bn, ".")
	for i := 0; i < len(ap) && i < len(bp); i++ {
		x, _ := strconv.Atoi(ap[i])
		y, _ := strconv.Atoi(bp[i])
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	switch {
	case as == bs:
		return 0
	case as == "":
		return 1
	case bs == "":
		return -1
	}
	return cmp.Compare(as, bs)
}

// Newest is the newest of releases ("" for none).
func Newest(releases []string) string {
	var n string
	for _, r := range releases {
		if n == "" || CompareReleases(r, n) > 0 {
			n = r
		}
	}
	return n
}
