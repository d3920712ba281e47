package embedded

import (
	"os"
	"testing"

	"github.com/sharechaos/sharechaos/internal/role"
)

// TestMain lets the test binary serve as the broker child: Start re-executes
// the running binary with SHARECHAOS_ROLE=broker and only the broker's own
// arguments, so the dispatch must come before m.Run parses test flags.
func TestMain(m *testing.M) {
	if role.Current() == BrokerRole {
		os.Exit(BrokerMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}
