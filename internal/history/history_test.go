package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecorderAndReadDir(t *testing.T) {
	dir := t.TempDir()
	a, err := Create(filepath.Join(dir, "w1.1.jsonl"), "w1.1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(filepath.Join(dir, "w2.1.jsonl"), "w2.1")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []*Recorder{a, b, a} {
		if err := r.Record(Event{TS: int64(30 - i), Type: OK, F: FPoll, Records: []Rec{{ID: "r-1", Partition: 0, Offset: int64(i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	b.Close()
	h, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 3 || h[0].TS != 28 || h[2].TS != 30 || h[1].Worker != "w2.1" {
		t.Fatalf("merged history out of time order or wrong: %+v", h)
	}
}

func TestReadFileTornLastLineIsIgnoredBadMiddleLineIsNot(t *testing.T) {
	dir := t.TempDir()
	good := `{"ts":1,"worker":"w1.1","type":"ok","f":"poll"}` + "\n"
	torn := filepath.Join(dir, "torn.jsonl")
	if err := os.WriteFile(torn, []byte(good+`{"ts":2,"wor`), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := ReadFile(torn)
	if err != nil || len(h) != 1 {
		t.Fatalf("torn last line: %d events, err %v; want 1 event, no error", len(h), err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(good+"garbage\n"+good), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("bad middle line: err %v, want one naming line 2", err)
	}
	if _, err := ReadDir(t.TempDir()); !IsNoHistory(err) {
		t.Fatalf("empty dir: err %v, want NoHistoryError", err)
	}
}
