// Package kafkarelease names Apache Kafka releases as Maven Central does
// (4.2.2, 4.4.0, 4.3.0-rc1): checked, ordered, the newest of a list. The
// docker backend's images, the runner's --kafka-version and the faults
// that roll a cluster between releases all read them here.
package kafkarelease

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// pattern is a release; nothing else may reach an image tag or a build
// script.
var pattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// Check refuses a string that is not a release number.
func Check(v string) error {
	if !pattern.MatchString(v) {
		return fmt.Errorf("kafka version %q: want a release such as 4.2.2 or 4.4.0", v)
	}
	return nil
}

// Compare orders two releases: -1, 0 or 1. A release candidate
// ("4.4.0-rc1") comes before its release.
func Compare(a, b string) int {
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
		if n == "" || Compare(r, n) > 0 {
			n = r
		}
	}
	return n
}
