// Package cluster defines what the suite needs from a Kafka cluster, whatever
// runs it: a small core interface every backend implements, and optional
// capabilities (kill, pause, cut off, find a role) that faults discover by type
// assertion. A fault whose capability a backend lacks is N/A there, never PASS.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// NodeID names one broker, the same number as its Kafka node.id.
type NodeID int32

// Cluster is the core every backend provides.
type Cluster interface {
	// Name is the backend's name as it appears in reports: "embedded" or "docker".
	Name() string
	// Nodes lists the brokers, in node-id order.
	Nodes() []NodeID
	// Bootstrap gives the addresses clients dial: the proxies' addresses, never
	// the brokers' own, so that network faults cannot be bypassed.
	Bootstrap() []string
	// Close stops the cluster and removes everything it started.
	Close(ctx context.Context) error
}

// Processes can crash and restart one broker with its data kept.
type Processes interface {
	// Kill SIGKILLs the broker's process.
	Kill(ctx context.Context, node NodeID) error
	// Restart starts a killed (or running) broker again on the same data and
	// addresses, and returns once it answers.
	Restart(ctx context.Context, node NodeID) error
}

// Pauser freezes a broker (SIGSTOP semantics: its connections stay up but hang).
type Pauser interface {
	Pause(ctx context.Context, node NodeID) error
	Resume(ctx context.Context, node NodeID) error
}

// Network acts on the proxies in front of the brokers' listeners.
type Network interface {
	// Isolate cuts every link of one broker: clients and other brokers alike.
	Isolate(ctx context.Context, node NodeID) error
	// SetLatency adds latency (and jitter) to every link; zero removes it.
	SetLatency(ctx context.Context, latency, jitter time.Duration) error
	// HealAll removes every fault from every proxy.
	HealAll(ctx context.Context) error
}

// CoordKind names a role a broker can hold for a key.
type CoordKind string

const (
	// CoordTransaction: key is a transactional id.
	CoordTransaction CoordKind = "transaction"
	// CoordGroup: key is a group id.
	CoordGroup CoordKind = "group"
	// CoordShareState: key is "group:topicId:partition"; the share-partition's
	// state lives per input partition in __share_group_state.
	CoordShareState CoordKind = "share-state"
	// CoordLeader: key is "topic/partition".
	CoordLeader CoordKind = "leader"
)

// Roles finds which broker holds a role, and moves partition leadership.
type Roles interface {
	Coordinator(ctx context.Context, kind CoordKind, key string) (NodeID, error)
	// MoveLeader makes node the leader of topic/partition (preferred-replica
	// reassignment plus election) and returns once the metadata says so.
	MoveLeader(ctx context.Context, topic string, partition int32, node NodeID) error
}

// BrokerLogs copies each broker's log into dir (for cells that did not PASS).
type BrokerLogs interface {
	CopyLogs(ctx context.Context, dir string) error
}

// ErrUnsupported is returned (wrapped) when a backend cannot perform an action.
var ErrUnsupported = errors.New("not supported by this backend")

// Releases can run a broker on another Kafka release, on its own data (a
// rolling upgrade: one broker at a time).
type Releases interface {
	// Release is the release the brokers started on, UpgradeTarget the
	// release a roll moves them to ("" when unknown or none).
	Release() string
	UpgradeTarget() string
	// SwapRelease stops node gracefully and starts it on release's image
	// on the same data and addresses, and returns once it answers, with
	// the version the new broker logged. A broker that will not start on
	// it (Kafka refusing the data) is put back on the release it ran, and
	// the error is a *RefusedError.
	SwapRelease(ctx context.Context, node NodeID, release string) (logged string, err error)
}

// RefusedError is a broker that would not start on another release: Kafka's
// own words (the end of its log) and whether the broker was put back on
// the release it ran before.
type RefusedError struct {
	Node       NodeID
	From, To   string
	Reason     string
	RolledBack bool
}

func (e *RefusedError) Error() string {
	back := "; it could NOT be put back on " + e.From
	if e.RolledBack {
		back = "; it runs " + e.From + " again on its own data, the cluster as it was"
	}
	return fmt.Sprintf("broker %d refused to start on Kafka %s (from %s): %s%s", e.Node, e.To, e.From, e.Reason, back)
}
