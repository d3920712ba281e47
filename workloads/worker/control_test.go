package worker

import (
	"os"
	"strconv"
	"testing"
)

func TestControlMain(t *testing.T) {
	self := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"signal", "0", self}, 0}, // signal 0: the process exists
		{[]string{"stat", self}, 0},
		{[]string{"signal", "CONT", self}, 64},
		{[]string{"stat", "-3"}, 64},
		{[]string{"signal", "0", "999999999"}, 1},
		{[]string{"kill", self}, 64},
		{[]string{"echo"}, 1}, // no line on stdin
		{nil, 64},
	} {
		if got := ControlMain(tc.args); got != tc.want {
			t.Errorf("%q: exit %d, want %d", tc.args, got, tc.want)
		}
	}
}
