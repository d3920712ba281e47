package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/sharechaos/sharechaos/workloads/kip1289/wire"
)

const (
	envPendingLock = "SHARECHAOS_KIP1289_PENDING_LOCK"
	// envBroken names a deliberate defect, as --kip1289-broken does: the
	// tests that prove a run catches a broken broker start it through the
	// embedded cluster, which passes its environment on.
	envBroken = "SHARECHAOS_KIP1289_BROKEN"
)

// Our flags, taken out of the command line before BrokerMain parses the rest
// (it refuses flags it does not know).
const (
	flagPendingLock = "kip1289-pending-lock"
	flagAddKey      = "kip1289-add-share-acks-key"
	flagAckKey      = "kip1289-txn-share-ack-key"
	flagBroken      = "kip1289-broken"
)

// parseKIPFlags splits args into ours and BrokerMain's. Each of ours may be
// spelled -name or --name, with its value as the next argument or after "=".
// The flags win over the environment's pending-lock policy and defect.
func parseKIPFlags(args []string, envLock, envBrokenValue string) ([]string, kfake.KIP1289Config, error) {
	cfg := kfake.KIP1289Config{
		AddShareAcksToTxnKey:   wire.DefaultAddShareAcksToTxnKey,
		TxnShareAcknowledgeKey: wire.DefaultTxnShareAcknowledgeKey,
		PendingLock:            kfake.KIP1289PendingLockExpire,
	}
	if envLock != "" {
		p, err := kfake.ParseKIP1289PendingLock(envLock)
		if err != nil {
			return nil, cfg, fmt.Errorf("%s: %w", envPendingLock, err)
		}
		cfg.PendingLock = p
	}
	if envBrokenValue != "" {
		b, err := kfake.ParseKIP1289Broken(envBrokenValue)
		if err != nil {
			return nil, cfg, fmt.Errorf("%s: %w", envBroken, err)
		}
		cfg.Broken = b
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || (name != flagPendingLock && name != flagAddKey && name != flagAckKey && name != flagBroken) {
			rest = append(rest, args[i])
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, cfg, fmt.Errorf("parse --%s: missing value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case flagPendingLock:
			p, err := kfake.ParseKIP1289PendingLock(value)
			if err != nil {
				return nil, cfg, fmt.Errorf("parse --%s: %w", name, err)
			}
			cfg.PendingLock = p
		case flagBroken:
			b, err := kfake.ParseKIP1289Broken(value)
			if err != nil {
				return nil, cfg, fmt.Errorf("parse --%s: %w", name, err)
			}
			cfg.Broken = b
		default:
			key, err := strconv.ParseInt(value, 10, 16)
			if err != nil || key <= 0 {
				return nil, cfg, fmt.Errorf("parse --%s: want a positive 16-bit key, got %q", name, value)
			}
			if name == flagAddKey {
				cfg.AddShareAcksToTxnKey = int16(key)
			} else {
				cfg.TxnShareAcknowledgeKey = int16(key)
			}
		}
	}
	return rest, cfg, nil
}
