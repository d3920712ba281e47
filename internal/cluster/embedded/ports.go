package embedded

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Ports are chosen below the kernel's ephemeral range: a broker's port is
// free while it restarts and a proxy's while it is disabled, and a port from
// the ephemeral range could meanwhile become the local end of some outgoing
// connection, so the broker or the proxy could not come back on it.
const (
	lowestPort           = 10000
	defaultEphemeralLow  = 32768
	ephemeralRangeConfig = "/proc/sys/net/ipv4/ip_local_port_range"
)

// pickFreePorts is pickPorts; a test replaces it to hand out a taken port.
var pickFreePorts = pickPorts

// pickPorts returns n distinct ports on 127.0.0.1 that were free a moment
// ago, drawn at random below the ephemeral range so that concurrent runs
// rarely try the same ones.
func pickPorts(n int) ([]int, error) {
	high := ephemeralLow()
	if high-lowestPort < 10*n {
		return nil, fmt.Errorf("pick ports: only %d ports below the ephemeral range", high-lowestPort)
	}
	var (
		ports []int
		held  []net.Listener
	)
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			return nil, fmt.Errorf("pick ports: no %d free ports found in [%d,%d)", n, lowestPort, high)
		}
		p := lowestPort + rand.IntN(high-lowestPort)
		// Holding each listener until all are chosen keeps the picks distinct.
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		held = append(held, ln)
		ports = append(ports, p)
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	b, err := os.ReadFile(ephemeralRangeConfig)
	if err != nil {
		return defaultEphemeralLow
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return defaultEphemeralLow
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low <= lowestPort {
		return defaultEphemeralLow
	}
	return low
}
