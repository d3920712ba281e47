package docker

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestToolImage: the tool's image runs the CLI as its entry point, and a run
// on the embedded backend inside it (the reference broker beside the CLI,
// so the transactional mode goes native) passes: the image carries what a
// run needs. The whole smoke profile inside it is QUALIFICATION's to run;
// this keeps CI short.
func TestToolImage(t *testing.T) {
	requireImages(t, ToolImage)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "run", "--rm", ToolImage, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "sharechaos ") {
		t.Fatalf("docker run %s version: %v\n%s", ToolImage, err, out)
	}
	out, err = exec.CommandContext(ctx, "docker", "run", "--rm", ToolImage, "run", "--backend", "embedded",
		"--scenario", "steady,crash-after-commit", "--mode", "transactional,explicit", "--records", "300").CombinedOutput()
	if err != nil {
		t.Fatalf("a run inside %s: %v\n%s", ToolImage, err, out)
	}
	s := string(out)
	if strings.Count(s, "\nPASS ") < 4 || !strings.Contains(s, "refbroker") {
		t.Errorf("want 4 PASS cells on the reference broker inside the image:\n%s", s)
	}
}
