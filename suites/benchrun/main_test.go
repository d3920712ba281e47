package benchrun

import (
	"os"
	"testing"

	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/internal/role"
)

// TestMain runs the embedded broker's child role when the test binary is
// re-executed as one (bench workers run in process; the broker does not).
func TestMain(m *testing.M) {
	if role.Current() == embedded.BrokerRole {
		os.Exit(embedded.BrokerMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}
