// Command sharechaos-refbroker is the reference broker: the embedded backend's
// kfake broker child (embedded.BrokerMain) built against kfake with KIP-1289
// added (refbroker/build.sh). The embedded cluster starts it instead of
// re-executing itself when Options.Reference.Binary names it.
//
// On top of BrokerMain's flags it takes:
//
//	--kip1289-pending-lock expire|hold   (env SHARECHAOS_KIP1289_PENDING_LOCK; default expire)
//	--kip1289-add-share-acks-key N       (default 12890)
//	--kip1289-txn-share-ack-key N        (default 12891)
//	--kip1289-broken stage-first-partition-only
//	                                     (a deliberate defect, for the tests that
//	                                     prove the conformance suite catches it;
//	                                     env SHARECHAOS_KIP1289_BROKEN)
package main

import (
	"fmt"
	"os"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
)

func main() {
	rest, cfg, err := parseKIPFlags(os.Args[1:], os.Getenv(envPendingLock), os.Getenv(envBroken))
	if err == nil {
		err = kfake.ConfigureKIP1289(cfg)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "refbroker: %v\n", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "refbroker: KIP-1289 keys AddShareAcksToTxn %d, TxnShareAcknowledge %d, pending lock %s\n",
		cfg.AddShareAcksToTxnKey, cfg.TxnShareAcknowledgeKey, cfg.PendingLock)
	if cfg.Broken != kfake.KIP1289BrokenNone {
		fmt.Fprintf(os.Stderr, "refbroker: DELIBERATELY BROKEN: %s\n", cfg.Broken)
	}
	os.Exit(embedded.BrokerMain(rest))
}
