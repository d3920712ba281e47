package main

import (
	"sort"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

// registerToxics is THE place where the suite's own toxics join toxiproxy's
// built-in ones (latency, timeout, bandwidth, ...). It runs once, before the
// server starts. Add a toxic with one line, e.g. for the Kafka-protocol-aware
// toxic of package faults/kafkatoxic:
//
//	toxics.Register("kafka", new(kafkatoxic.Toxic))
//
// Its name is what clients pass as the toxic's type. The image build hashes
// the binary, so a new toxic rebuilds the image by itself.
func registerToxics() {
	// No toxics of our own yet.
}

// registeredToxics lists every toxic type the server knows, for the start log.
func registeredToxics() []string {
	names := make([]string, 0, len(toxics.ToxicRegistry))
	for name := range toxics.ToxicRegistry {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
