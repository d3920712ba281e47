package kafkarole

import "testing"

func TestPreferredFirst(t *testing.T) {
	for _, tc := range []struct {
		replicas []int32
		node     int32
		want     []int32
	}{
		{[]int32{1, 2, 3}, 3, []int32{3, 1, 2}},
		{[]int32{1, 2, 3}, 1, []int32{1, 2, 3}},
		{[]int32{1, 2}, 3, []int32{3, 1}}, // not a replica: replaces the last
	} {
		got := preferredFirst(tc.replicas, tc.node)
		if len(got) != len(tc.want) {
			t.Fatalf("preferredFirst(%v, %d) = %v, want %v", tc.replicas, tc.node, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("preferredFirst(%v, %d) = %v, want %v", tc.replicas, tc.node, got, tc.want)
				break
			}
		}
	}
}
