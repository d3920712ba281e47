package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report renders only what reads as the contract: a result.json whose
// verdict nobody could have derived is refused, naming it, and nothing is
// written.
func TestReportRefusesAResultThatIsNotTheContract(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"verdict":"MAYBE","exit_code":0,"runs":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := mainCode([]string{"report", dir}, &stdout, &stderr); code != 64 {
		t.Fatalf("exit %d, want 64 (stderr %q)", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"MAYBE"`) {
		t.Errorf("stderr %q does not name the verdict", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.md")); err == nil {
		t.Error("summary.md written from a refused result")
	}
}
