package ctp

import (
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// Must be UNKNOWN: a checker that crashes cannot say the cell held (Jepsen).
// No observation makes the checker panic on purpose, so the guard Check runs
// under is tested with a check that does.
func TestCheckPanicIsUnknown(t *testing.T) {
	res := checkRecovering(func() CheckResult {
		var outs []Output
		_ = outs[3] // index out of range, as a checker bug would
		return CheckResult{Verdict: verdict.Pass}
	})
	if res.Verdict != verdict.Unknown {
		t.Errorf("verdict %s, want UNKNOWN", res.Verdict)
	}
	if !strings.HasPrefix(res.Reason, "checker panicked: runtime error: index out of range") {
		t.Errorf("reason %q does not carry the panic", res.Reason)
	}
	if ok := checkRecovering(func() CheckResult { return CheckResult{Verdict: verdict.Pass} }); ok.Verdict != verdict.Pass {
		t.Errorf("the guard changed a verdict that did not panic: %s", ok.Verdict)
	}
}
