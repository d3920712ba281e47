package embedded

import (
	"slices"
	"testing"
)

func TestReferenceValidate(t *testing.T) {
	for _, r := range []Reference{
		{PendingLock: "hold"},                    // settings without a binary
		{Binary: "/x", PendingLock: "forever"},   // unknown policy
		{Binary: "/x", AddShareAcksToTxnKey: -1}, // negative key
	} {
		if err := r.validate(); err == nil {
			t.Errorf("%+v validated", r)
		}
	}
	if err := (Reference{}).validate(); err != nil {
		t.Errorf("zero reference: %v", err)
	}
}

func TestBrokerCommandReference(t *testing.T) {
	args := brokerArgs{ports: []int{1}, logLevel: "warn", ref: Reference{Binary: "/bin/refbroker", PendingLock: "hold", TxnShareAcknowledgeKey: 3000}}
	cmd, err := brokerCommand(args)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"/bin/refbroker", "--kip1289-pending-lock", "hold", "--kip1289-txn-share-ack-key", "3000"}, args.encode()...)
	if !slices.Equal(cmd.Args, want) {
		t.Errorf("args %q, want %q", cmd.Args, want)
	}
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		t.Error("the reference broker does not lead its own process group")
	}
}
