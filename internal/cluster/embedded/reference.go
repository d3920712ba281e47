package embedded

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/sharechaos/sharechaos/internal/role"
)

// Reference selects the broker binary of the child and its KIP-1289 settings.
// The zero value is today's broker: the running binary re-executed in
// BrokerRole, with kfake as the main module pins it (no KIP-1289).
type Reference struct {
	// Binary is a reference broker executable (bin/sharechaos-refbroker, built
	// by refbroker/build.sh: kfake with KIP-1289) started in place of the
	// running binary, with the same broker arguments plus the settings below.
	Binary string
	// PendingLock is what a record's acquisition lock does while an ack of
	// it is pending in a transaction: "expire" (the KIP as written) or
	// "hold"; empty: the reference broker's default (expire).
	PendingLock string
	// AddShareAcksToTxnKey and TxnShareAcknowledgeKey are the API keys the
	// reference broker serves the RPCs at; 0: its defaults (12890, 12891).
	AddShareAcksToTxnKey   int16
	TxnShareAcknowledgeKey int16
	// Broken names a deliberate defect of the reference broker (its
	// --kip1289-broken), for the tests that prove the conformance suite
	// catches it; empty: none.
	Broken string
}

// Reference broker flags; refbroker/flags.go parses them.
const (
	refFlagPendingLock = "--kip1289-pending-lock"
	refFlagAddKey      = "--kip1289-add-share-acks-key"
	refFlagAckKey      = "--kip1289-txn-share-ack-key"
	refFlagBroken      = "--kip1289-broken"
)

func (r Reference) validate() error {
	if r.Binary == "" {
		if r.PendingLock != "" || r.AddShareAcksToTxnKey != 0 || r.TxnShareAcknowledgeKey != 0 || r.Broken != "" {
			return errors.New("validate reference broker: KIP-1289 settings need a reference broker binary")
		}
		return nil
	}
	switch r.PendingLock {
	case "", "expire", "hold":
	default:
		return fmt.Errorf("validate reference broker: pending lock %q: want expire or hold", r.PendingLock)
	}
	if r.AddShareAcksToTxnKey < 0 || r.TxnShareAcknowledgeKey < 0 {
		return errors.New("validate reference broker: negative API key")
	}
	return nil
}

// args are the reference broker's own flags, before the broker arguments.
func (r Reference) args() []string {
	var args []string
	if r.PendingLock != "" {
		args = append(args, refFlagPendingLock, r.PendingLock)
	}
	if r.AddShareAcksToTxnKey != 0 {
		args = append(args, refFlagAddKey, strconv.Itoa(int(r.AddShareAcksToTxnKey)))
	}
	if r.TxnShareAcknowledgeKey != 0 {
		args = append(args, refFlagAckKey, strconv.Itoa(int(r.TxnShareAcknowledgeKey)))
	}
	if r.Broken != "" {
		args = append(args, refFlagBroken, r.Broken)
	}
	return args
}

// brokerCommand prepares the broker child: the reference binary when one is
// set, else the running binary in BrokerRole. Either way the child leads its
// own process group and dies with us, as role.Command arranges.
func brokerCommand(args brokerArgs) (*exec.Cmd, error) {
	ref := args.ref
	if err := ref.validate(); err != nil {
		return nil, err
	}
	if ref.Binary == "" {
		return role.Command(BrokerRole, args.encode()...)
	}
	cmd := exec.Command(ref.Binary, append(ref.args(), args.encode()...)...)
	cmd.Env = os.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}
