package cluster

// LinkKind is what a proxied link carries.
type LinkKind string

const (
	// LinkClient: clients to a broker's client listener.
	LinkClient LinkKind = "client"
	// LinkInternal: one broker to another's inter-broker listener
	// (replication fetches, inter-broker requests).
	LinkInternal LinkKind = "internal"
	// LinkController: one broker (or its controller) to another's
	// controller listener (KRaft votes and fetches, heartbeats).
	LinkController LinkKind = "controller"
)

// Link is one proxied TCP path: one toxiproxy proxy, named Name.
type Link struct {
	Name string
	Kind LinkKind
	// From is the broker whose connections enter this proxy; 0 for clients.
	From NodeID
	// To is the broker the proxy forwards to.
	To NodeID
}

// Touches says whether the link carries traffic of node.
func (l Link) Touches(node NodeID) bool { return l.From == node || l.To == node }

// Links is a backend whose links sit behind a toxiproxy that answers its
// HTTP API (and knows the Kafka toxic): faults that act on single Kafka
// requests of single links find the proxies here instead of guessing them
// from names.
type Links interface {
	// Links lists every proxied link.
	Links() []Link
	// ProxyAPI is the toxiproxy HTTP API's base URL.
	ProxyAPI() string
}
