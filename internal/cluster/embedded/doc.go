// Package embedded is the cluster backend that needs nothing but Go: franz-go's
// kfake (N brokers in one event loop) in one child process of the running
// binary (role "broker", see BrokerMain), with a data directory so that a
// graceful restart keeps everything, and an in-process toxiproxy with one
// proxy per broker listener. kfake advertises each listener's Addr(), and the
// child's listeners report their proxy's address, so clients only ever dial
// the proxies and cannot bypass a network fault.
//
// The broker runs outside the orchestrator's process so that the
// orchestrator's own state and the broker's never mix, and so that a stop is a
// real process boundary (SIGTERM, then SIGKILL after a timeout).
//
// Capabilities: cluster.Network (client links only: kfake has no links between
// its brokers), cluster.Roles, cluster.BrokerLogs and RestartGraceful. Not
// cluster.Processes: kill -9 of kfake is not a faithful broker crash
// (BrokerCrashNA says why).
package embedded
