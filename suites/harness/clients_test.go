package harness

import (
	"errors"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// TestClientsUsage: an unknown client, or one named twice, is a usage error
// (64) that names the valid clients; no --client is the default go alone.
func TestClientsUsage(t *testing.T) {
	c := Common{Backend: "embedded", Modes: []ctp.AckMode{ctp.Explicit}}.WithDefaults()
	if len(c.Clients) != 1 || c.Clients[0] != "go" {
		t.Fatalf("default clients %v, want [go]", c.Clients)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("default: %v", err)
	}
	for _, bad := range [][]string{{"go", "rust"}, {"go", "go"}} {
		c.Clients = bad
		err := c.Validate()
		var u *UsageError
		if !errors.As(err, &u) {
			t.Errorf("--client %v: %v, want a usage error", bad, err)
			continue
		}
		if bad[1] == "rust" && !strings.Contains(err.Error(), "go, java") {
			t.Errorf("--client %v: %q does not name the valid clients", bad, err)
		}
	}
}
