package harness

import (
	"testing"

	"github.com/sharechaos/sharechaos/internal/cluster/docker"
)

// --kip1289-pending-lock reaches the docker backend's brokers (as
// kip1289.pending.lock, which an image with KIP-1289 built in reads), not
// only the embedded reference broker.
func TestPendingLockReachesDocker(t *testing.T) {
	c := Common{PendingLock: PendingLockHold}
	so, note, err := StartOptionsFor(c, Choice{Name: docker.Name}, StartOptions{})
	if err != nil || note != "" {
		t.Fatalf("StartOptionsFor(docker): %v, note %q", err, note)
	}
	if so.PendingLock != PendingLockHold {
		t.Errorf("docker start options carry pending lock %q, want %q", so.PendingLock, PendingLockHold)
	}
}
