package embedded

import (
	"fmt"
	"net"
)

// advertisedListener is a broker listener that reports another address: kfake
// advertises whatever its listeners' Addr() returns (it has no
// advertised.listeners), so reporting the proxy's address here is what makes
// every client, after any metadata refresh, dial the proxy and never the
// broker itself.
type advertisedListener struct {
	net.Listener
	advertised net.Addr
}

func (l advertisedListener) Addr() net.Addr { return l.advertised }

// advertisingListenFn returns a kfake.ListenFn that binds each broker's own
// address and advertises the one that advertise maps it to. An address missing
// from the map is an error, not a silent bypass of the proxies.
func advertisingListenFn(advertise map[string]string) func(network, address string) (net.Listener, error) {
	return func(network, address string) (net.Listener, error) {
		target, ok := advertise[address]
		if !ok {
			return nil, fmt.Errorf("advertise listener %s: no advertised address given", address)
		}
		advertised, err := net.ResolveTCPAddr(network, target)
		if err != nil {
			return nil, fmt.Errorf("resolve advertised address %s: %w", target, err)
		}
		ln, err := net.Listen(network, address)
		if err != nil {
			return nil, err
		}
		return advertisedListener{Listener: javaCompatListener{ln}, advertised: advertised}, nil // javacompat.go
	}
}
