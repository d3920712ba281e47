package docker

import "testing"

// TestBrokerJITChoices: every --broker-jit choice has its JVM flags, C1
// stops the JIT at tier 1, and a word that is not a choice is refused.
func TestBrokerJITChoices(t *testing.T) {
	for _, j := range JITs {
		if _, ok := jitOpts[j]; !ok {
			t.Errorf("JIT %q has no JVM flags", j)
		}
	}
	if jitOpts[JITC1] != "-XX:TieredStopAtLevel=1" {
		t.Errorf("c1 flags %q", jitOpts[JITC1])
	}
	if o, err := (Options{}).withDefaults(); err != nil || o.BrokerJIT != JITC1 {
		t.Errorf("default JIT %q (err %v), want c1", o.BrokerJIT, err)
	}
	if _, err := (Options{BrokerJIT: "c2"}).withDefaults(); err == nil {
		t.Error("JIT c2 accepted")
	}
}
