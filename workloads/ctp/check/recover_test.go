package check

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Must be UNKNOWN for that part only: a sub-checker that crashes cannot say
// the cell held (Jepsen's check-safe), but the others still judge, and the
// reason names the part that crashed. No observation makes a checker panic
// on purpose, so the composition is tested with a checker that does.
func TestCheckPanicIsUnknownForThatPart(t *testing.T) {
	obs := ctp.Observation{Mode: ctp.Explicit, Inputs: []ctp.Input{{ID: ctp.InputID(0)}},
		ShareStart: map[int32]int64{0: 1}}
	s := newState(obs)
	boom := checker{"boom", func(*state) *part {
		var outs []ctp.Output
		_ = outs[3] // index out of range, as a checker bug would
		return nil
	}}
	res := runCheckers(s, Allowed{}, []checker{{"input", checkInput}, boom})
	if res.Verdict != verdict.Unknown {
		t.Errorf("verdict %s, want UNKNOWN", res.Verdict)
	}
	if !strings.HasPrefix(res.Reason, "checker boom panicked: runtime error: index out of range") {
		t.Errorf("reason %q does not name the part and carry the panic", res.Reason)
	}
	if len(res.Parts) != 2 || res.Parts[0].Verdict != verdict.Pass || res.Parts[1].Verdict != verdict.Unknown {
		t.Errorf("parts %+v", res.Parts)
	}
	if res.Counts.Input != 1 {
		t.Errorf("the other part's counts were lost: %+v", res.Counts)
	}

	// An anomaly another part found still wins over the crash (worst wins).
	res = runCheckers(s, Allowed{}, []checker{{"loss", checkLoss}, boom})
	if res.Verdict != verdict.Anomaly || res.Anomalies[verdict.AnomalyLostUnexplained].Count != 1 {
		t.Errorf("verdict %s anomalies %v, want the loss as ANOMALY", res.Verdict, res.Anomalies)
	}

}

// addCounts sums every field: a field it forgot would vanish from result.json.
func TestAddCountsSumsEveryField(t *testing.T) {
	var one verdict.Counts
	v := reflect.ValueOf(&one).Elem()
	for i := range v.NumField() {
		v.Field(i).SetInt(1)
	}
	sum := reflect.ValueOf(addCounts(one, one))
	for i := range sum.NumField() {
		if got := sum.Field(i).Int(); got != 2 {
			t.Errorf("addCounts: %s = %d, want 2", sum.Type().Field(i).Name, got)
		}
	}
}
