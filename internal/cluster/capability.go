package cluster

// Capability names what a fault needs from a backend, beside the interface
// it type-asserts.
type Capability string

const (
	CapProcesses   Capability = "processes"    // Kill, Restart of a killed broker
	CapRestart     Capability = "restart"      // Restart of a running broker (rolling restart)
	CapPauser      Capability = "pause"        // Pause, Resume
	CapIsolate     Capability = "isolate"      // Network.Isolate, HealAll
	CapLatency     Capability = "latency"      // Network.SetLatency, HealAll
	CapBrokerLinks Capability = "broker-links" // Disconnect two brokers
	CapKafkaToxic  Capability = "kafka-toxic"  // toxiproxy's API in the path
)

// Capable is a backend whose capabilities depend on its configuration (the
// external backend offers only what its hooks file provides): it implements
// every method, and Lacks says which it can really do.
type Capable interface {
	// Lacks is "" when the backend can do cap, else why not (the N/A reason).
	Lacks(cap Capability) string
}

// Lacks is why c cannot do cap, or "" when nothing but the type assertion
// the caller makes decides.
func Lacks(c Cluster, cap Capability) string {
	if cc, ok := c.(Capable); ok {
		return cc.Lacks(cap)
	}
	return ""
}
