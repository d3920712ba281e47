package kafkarole

import "testing"

// TestCoordinatorPartition checks the Java hash against values Java
// prints; the real test against Kafka's own placement is in the faults'
// TestDockerFaults.
func TestCoordinatorPartition(t *testing.T) {
	for s, want := range map[string]int32{"": 0, "hello": 99162322, "polygenelubricants": -2147483648, "g:AbCdEf:3": -111968017} {
		if got := javaStringHash(s); got != want {
			t.Errorf("hash %q = %d, want %d", s, got, want)
		}
	}
	if p := CoordinatorPartition("polygenelubricants", 10); p != 0 {
		t.Errorf("MIN_VALUE hash: partition %d, want 0 (Utils.abs)", p)
	}
	if p := CoordinatorPartition("g:AbCdEf:3", 10); p != 7 { // |-111968017| % 10
		t.Errorf("negative hash: partition %d, want 7", p)
	}
	if p := CoordinatorPartition("hello", 50); p != 99162322%50 {
		t.Errorf("partition %d", p)
	}
}
