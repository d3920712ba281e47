package docker

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

func TestOwnerAlive(t *testing.T) {
	self := os.Getpid()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := dead.Process.Pid
	for _, tc := range []struct {
		name   string
		labels map[string]string
		alive  bool
	}{
		{"this process", map[string]string{LabelPID: strconv.Itoa(self), LabelPIDStart: processStart(self)}, true},
		{"this process, no start label", map[string]string{LabelPID: strconv.Itoa(self)}, true},
		{"pid reused by another process", map[string]string{LabelPID: strconv.Itoa(self), LabelPIDStart: "1"}, false},
		{"exited process", map[string]string{LabelPID: strconv.Itoa(deadPID)}, false},
		{"no pid label", map[string]string{LabelRun: "x"}, false},
		{"garbage pid", map[string]string{LabelPID: "abc"}, false},
	} {
		if got := ownerAlive(tc.labels); got != tc.alive {
			t.Errorf("%s: ownerAlive = %t, want %t", tc.name, got, tc.alive)
		}
	}
}
