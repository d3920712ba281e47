// Package images holds the sources of the container images the docker
// backend runs (built by docker/build-images.sh); this file hands their
// version files to the Go code, so each version is named in one place.
package images

import (
	_ "embed"
	"strings"
)

//go:embed kafka/version
var kafkaVersionFile string

// KafkaVersion is the Apache Kafka version our Kafka image carries
// (kafka/version, the one place that names it).
var KafkaVersion = strings.TrimSpace(kafkaVersionFile)

//go:embed kafka-kip1289/version
var kip1289KafkaVersionFile string

// KIP1289KafkaVersion is the Apache Kafka version the KIP-1289 image
// patches (kafka-kip1289/version; docs/KIP1289-ON-KAFKA.md says why).
var KIP1289KafkaVersion = strings.TrimSpace(kip1289KafkaVersionFile)
