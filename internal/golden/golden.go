// Package golden keeps a test's expected bytes in a file under testdata/,
// for the files another implementation reads too (the Java worker's tests
// read the Go worker's golden files: the two must encode alike).
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the test binary's -update flag (only test binaries import this
// package).
var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Check compares want with testdata/name; with -update it writes want there
// first. A stale file fails the test naming the command that rewrites it.
func Check(t testing.TB, name string, want []byte, rewrite string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run %s -update\ngot:\n%s\nwant:\n%s", path, rewrite, got, want)
	}
}
