package docker

import (
	"fmt"
	"strings"
)

// ProvideCommand is the command that builds image on this machine, for a
// message that names a missing image: our stock image of a release is
// `make images KAFKA_VERSIONS="<release>"`, our other images are `make
// images`; an image that is not ours has no command here ("").
func ProvideCommand(image string) string {
	if v, ok := strings.CutPrefix(image, "sharechaos/kafka:"); ok && CheckVersion(v) == nil {
		if image == DefaultKafkaImage {
			return "make images"
		}
		return fmt.Sprintf("make images KAFKA_VERSIONS=%q", v)
	}
	switch image {
	case KIP1289KafkaImage, StockKIP1289KafkaImage, DefaultToxiproxyImage:
		return "make images"
	}
	return ""
}

// MissingWhy says which of missing (images the engine lacks) to build and
// how: each image with its command, one command for several where they
// share it; an image not ours points at docker/README.md.
func MissingWhy(missing []string) string {
	var parts []string
	byCommand := map[string][]string{}
	var order []string
	for _, image := range missing {
		cmd := ProvideCommand(image)
		if cmd == "" {
			parts = append(parts, fmt.Sprintf("image %s missing (not one of ours: build or load it, docker/README.md says what an image must do)", image))
			continue
		}
		if _, seen := byCommand[cmd]; !seen {
			order = append(order, cmd)
		}
		byCommand[cmd] = append(byCommand[cmd], image)
	}
	for _, cmd := range order {
		parts = append(parts, fmt.Sprintf("image %s missing: build it with %s", strings.Join(byCommand[cmd], " and "), cmd))
	}
	return strings.Join(parts, "; ")
}
