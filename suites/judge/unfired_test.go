package judge

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/history"
)

// TestLastPreparationNamesWhyAFaultDidNotFire: a cluster fault that began
// and gave up says why in its last preparation, and that, not the load
// trigger, is the UNKNOWN's reason.
func TestLastPreparationNamesWhyAFaultDidNotFire(t *testing.T) {
	h := history.History{
		{F: history.FFaultPrepare, Attrs: map[string]string{"action": "input leader moved off its share coordinator"}},
		{F: history.FFaultPrepare, Attrs: map[string]string{"action": "stale write attempt let go", "why": "the stored start offset 10 is not above the resend's 10"}},
	}
	if why, began := lastPreparation(h); !began || !strings.Contains(why, "not above the resend's") {
		t.Errorf("lastPreparation = %q, %v: want the last why", why, began)
	}
	if why, began := lastPreparation(h[:1]); !began || why != "" {
		t.Errorf("a preparation without a why: %q, %v", why, began)
	}
	if _, began := lastPreparation(nil); began {
		t.Error("no preparation read as one")
	}
}
