package cell

import (
	"github.com/sharechaos/sharechaos/result"
	"testing"
	"time"
)

// A cluster fault's firing and healing cut fault, heal and drain out of the
// load, and the phases still add up to the cell's time.
func TestPhaseTimerCutsTheFaultOutOfTheLoad(t *testing.T) {
	var pt phaseTimer
	pt.begin(result.PhaseSeeding)
	pt.begin(result.PhaseLoad)
	loadStart := time.Now()
	fired := loadStart.Add(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	healed := time.Now().Add(-time.Millisecond)
	time.Sleep(2 * time.Millisecond)
	pt.begin(result.PhaseReadBack)
	pt.markFault([]time.Time{fired}, []time.Time{healed})
	var names []string
	for _, p := range pt.result() {
		names = append(names, p.Name)
	}
	want := []string{result.PhaseSeeding, result.PhaseLoad, result.PhaseFault, result.PhaseHeal, result.PhaseDrain, result.PhaseReadBack}
	if len(names) != len(want) {
		t.Fatalf("phases %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("phases %v, want %v", names, want)
		}
	}
	if h := sumPhases(pt.result(), result.PhaseHeal); h < 0.002 {
		t.Errorf("heal %.4fs, want about the 3 ms between firing and healing", h)
	}
}

// A fault that never healed leaves a drain after it, not a fault to the end.
func TestPhaseTimerUnhealedFault(t *testing.T) {
	var pt phaseTimer
	pt.begin(result.PhaseLoad)
	fired := time.Now()
	time.Sleep(2 * time.Millisecond)
	pt.begin(result.PhaseReadBack)
	pt.markFault([]time.Time{fired}, nil)
	got := pt.result()
	if len(got) != 4 || got[2].Name != result.PhaseDrain {
		t.Errorf("phases %+v, want load, fault, drain, read-back", got)
	}
}
