package kfake

// This file and the other sharechaos_kip1289_*.go files are not part of kfake:
// the sharechaos reference broker copies them into a patched copy of the
// pinned kfake module at build time (refbroker/build.sh), so that KIP-1289 can
// reach kfake's unexported share-group and transaction state. kfake.patch
// only hooks them in.

import (
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

// KIP1289PendingLock is what a record's acquisition lock does while an ack of
// the record is pending in a transaction.
type KIP1289PendingLock string

const (
	// KIP1289PendingLockExpire is the KIP as written: the lock still expires,
	// the record is released and another member may acquire it; a later
	// commit still applies the ack unless the record was finalized or is
	// pending in another transaction meanwhile.
	KIP1289PendingLockExpire KIP1289PendingLock = "expire"
	// KIP1289PendingLockHold: a pending ack holds the record until its
	// transaction ends, whatever the lock says.
	KIP1289PendingLockHold KIP1289PendingLock = "hold"
)

// ParseKIP1289PendingLock reads "expire" or "hold".
func ParseKIP1289PendingLock(s string) (KIP1289PendingLock, error) {
	switch p := KIP1289PendingLock(s); p {
	case KIP1289PendingLockExpire, KIP1289PendingLockHold:
		return p, nil
	}
	return "", fmt.Errorf("parse pending lock policy %q: want expire or hold", s)
}

// KIP1289Broken names a deliberate defect of the reference broker, for the
// tests that prove the conformance suite catches it (as the loop mutants
// prove the checker): never set outside them.
type KIP1289Broken string

const (
	// KIP1289BrokenNone is the broker as it should be.
	KIP1289BrokenNone KIP1289Broken = ""
	// KIP1289BrokenStageFirstPartitionOnly stages the acks of only the first
	// share-partition of a TxnShareAcknowledge and answers success for every
	// one of them: the defect a broker whose handler forgets all but one
	// share-partition of a multi-partition request has.
	KIP1289BrokenStageFirstPartitionOnly KIP1289Broken = "stage-first-partition-only"
)

// ParseKIP1289Broken reads a defect's name ("" or "none": none).
func ParseKIP1289Broken(s string) (KIP1289Broken, error) {
	switch b := KIP1289Broken(s); b {
	case KIP1289BrokenNone, KIP1289BrokenStageFirstPartitionOnly:
		return b, nil
	case "none":
		return KIP1289BrokenNone, nil
	}
	return "", fmt.Errorf("parse broken %q: want none or %s", s, KIP1289BrokenStageFirstPartitionOnly)
}

// KIP1289Config is the process-wide KIP-1289 setup: the two API keys (kfake
// builds its ApiVersions answer once per process, so keys cannot differ
// between clusters) and the pending-lock policy new clusters start with.
type KIP1289Config struct {
	AddShareAcksToTxnKey   int16
	TxnShareAcknowledgeKey int16
	PendingLock            KIP1289PendingLock
	// Broken is a deliberate defect (tests only).
	Broken KIP1289Broken
}

var kip1289Global = struct {
	sync.Mutex
	cfg KIP1289Config
}{cfg: KIP1289Config{
	AddShareAcksToTxnKey:   wire.DefaultAddShareAcksToTxnKey,
	TxnShareAcknowledgeKey: wire.DefaultTxnShareAcknowledgeKey,
	PendingLock:            KIP1289PendingLockExpire,
}}

// Both RPCs are v0 only: TxnShareAcknowledge v0 goes to the share
// coordinator, as the KIP is written. The patched Kafka serves v1 instead (to
// the partition leader); this broker stays at v0 so that the KIP's own routing
// keeps running here (every embedded run and the conformance suite exercise
// it), and a client that negotiates v1 with it does not exist.
const (
	refAddShareAcksToTxnVersion   = wire.AddShareAcksToTxnVersion
	refTxnShareAcknowledgeVersion = wire.TxnShareAcknowledgeToCoordinator
)

func init() {
	regKey(wire.DefaultAddShareAcksToTxnKey, refAddShareAcksToTxnVersion, refAddShareAcksToTxnVersion)
	regKey(wire.DefaultTxnShareAcknowledgeKey, refTxnShareAcknowledgeVersion, refTxnShareAcknowledgeVersion)
}

// ConfigureKIP1289 sets the API keys and the default pending-lock policy. Call
// it before the first cluster answers ApiVersions: the keys are registered
// process-wide. Zero keys keep the current ones; an empty policy keeps the
// current one.
func ConfigureKIP1289(cfg KIP1289Config) error {
	kip1289Global.Lock()
	defer kip1289Global.Unlock()
	next := kip1289Global.cfg
	if cfg.AddShareAcksToTxnKey != 0 {
		next.AddShareAcksToTxnKey = cfg.AddShareAcksToTxnKey
	}
	if cfg.TxnShareAcknowledgeKey != 0 {
		next.TxnShareAcknowledgeKey = cfg.TxnShareAcknowledgeKey
	}
	if cfg.PendingLock != "" {
		if _, err := ParseKIP1289PendingLock(string(cfg.PendingLock)); err != nil {
			return fmt.Errorf("configure kip1289: %w", err)
		}
		next.PendingLock = cfg.PendingLock
	}
	next.Broken = cfg.Broken
	if next.AddShareAcksToTxnKey == next.TxnShareAcknowledgeKey {
		return fmt.Errorf("configure kip1289: both APIs have key %d", next.AddShareAcksToTxnKey)
	}
	apiVersionsMu.Lock()
	defer apiVersionsMu.Unlock()
	old := kip1289Global.cfg
	for _, k := range []int16{next.AddShareAcksToTxnKey, next.TxnShareAcknowledgeKey} {
		if _, taken := apiVersionsKeys[k]; taken && k != old.AddShareAcksToTxnKey && k != old.TxnShareAcknowledgeKey {
			return fmt.Errorf("configure kip1289: key %d is already a kfake API", k)
		}
	}
	delete(apiVersionsKeys, old.AddShareAcksToTxnKey)
	delete(apiVersionsKeys, old.TxnShareAcknowledgeKey)
	apiVersionsKeys[next.AddShareAcksToTxnKey] = kmsg.ApiVersionsResponseApiKey{ApiKey: next.AddShareAcksToTxnKey,
		MinVersion: refAddShareAcksToTxnVersion, MaxVersion: refAddShareAcksToTxnVersion}
	apiVersionsKeys[next.TxnShareAcknowledgeKey] = kmsg.ApiVersionsResponseApiKey{ApiKey: next.TxnShareAcknowledgeKey,
		MinVersion: refTxnShareAcknowledgeVersion, MaxVersion: refTxnShareAcknowledgeVersion}
	kip1289Global.cfg = next
	return nil
}

func kip1289Config() KIP1289Config {
	kip1289Global.Lock()
	defer kip1289Global.Unlock()
	return kip1289Global.cfg
}

// kip1289RequestForKey is kmsg.RequestForKey that also knows our two keys. It
// returns nil for a key nobody knows: the connection reader then closes the
// connection instead of crashing on a nil request.
func kip1289RequestForKey(key int16) kmsg.Request {
	cfg := kip1289Config()
	switch key {
	case cfg.AddShareAcksToTxnKey:
		return &wire.AddShareAcksToTxnRequest{APIKey: key}
	case cfg.TxnShareAcknowledgeKey:
		return &wire.TxnShareAcknowledgeRequest{APIKey: key}
	}
	return kmsg.RequestForKey(key)
}

// handleKIP1289 answers our two requests; any other key is the error kfake's
// dispatch gives an unhandled key (the connection is closed).
func (c *Cluster) handleKIP1289(creq *clientReq, k kmsg.Key) (kmsg.Response, error) {
	switch req := creq.kreq.(type) {
	case *wire.AddShareAcksToTxnRequest:
		return c.handleAddShareAcksToTxn(creq, req)
	case *wire.TxnShareAcknowledgeRequest:
		return c.handleTxnShareAcknowledge(creq, req)
	}
	return nil, fmt.Errorf("unhandled key %v", k)
}

// SetKIP1289PendingLock changes this cluster's pending-lock policy. Acks
// already pending keep their records as the new policy says from the next
// lock sweep on.
func (c *Cluster) SetKIP1289PendingLock(p KIP1289PendingLock) error {
	if _, err := ParseKIP1289PendingLock(string(p)); err != nil {
		return err
	}
	c.admin(func() { c.kip1289().policy = p })
	return nil
}
