package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file that does not read as the contract is refused, naming what is
// wrong; one that does reads back as written.
func TestReadResultRefusesWhatIsNotTheContract(t *testing.T) {
	for name, body := range map[string]string{
		`verdict "MAYBE"`:   `{"verdict":"MAYBE","exit_code":0,"runs":[]}`,
		"does not go with":  `{"verdict":"PASS","exit_code":1,"runs":[]}`,
		`no "runs" list`:    `{"verdict":"PASS","exit_code":0}`,
		`runs[0]`:           `{"verdict":"PASS","exit_code":0,"runs":[{"scenario":"steady","verdict":"OK"}]}`,
		"invalid character": `{not json`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ResultFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadResult(dir); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v, want one naming %q", body, err, name)
		}
	}
	dir := t.TempDir()
	want := Result{Verdict: "ANOMALY", ExitCode: 1, Runs: []Cell{{Scenario: "steady", Verdict: "ANOMALY"}}}
	if err := WriteResultJSON(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResult(dir)
	if err != nil || got.Verdict != want.Verdict || len(got.Runs) != 1 {
		t.Fatalf("read back %+v, %v", got, err)
	}
}
