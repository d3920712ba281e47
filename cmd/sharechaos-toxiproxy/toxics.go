package main

import (
	"sort"

	"github.com/Shopify/toxiproxy/v2/toxics"

	"github.com/sharechaos/sharechaos/faults/kafkatoxic"
)

// registerToxics is THE place where the suite's own toxics join toxiproxy's
// built-in ones (latency, timeout, bandwidth, ...). It runs once, before the
// server starts. Add a toxic with one line: toxics.Register(name, new(T)),
// or the package's own Register. The name is what clients pass as the
// toxic's type. The image build hashes the binary, so a new or changed
// toxic rebuilds the image by itself.
func registerToxics() {
	// The Kafka-protocol-aware toxic (type kafkatoxic.TypeName).
	kafkatoxic.Register()
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
