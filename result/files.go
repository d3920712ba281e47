package result

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/atomicfile"
)

// File names of the JSON contract inside a run directory (CONTRACT.md).
const (
	ResultFile = "result.json"
	BenchFile  = "bench.json"
)

// WriteResultJSON writes dir/result.json atomically: a Ctrl-C never leaves
// half a report.
func WriteResultJSON(dir string, r Result) error {
	return writeJSON(filepath.Join(dir, ResultFile), r)
}

// ReadResultJSON reads a result.json and checks it against the contract
// (CONTRACT.md): a file that does not read as one is refused, naming what is
// wrong, rather than rendered.
func ReadResultJSON(path string) (Result, error) {
	var r Result
	if err := readJSON(path, &r); err != nil {
		return Result{}, err
	}
	if err := r.validate(); err != nil {
		return Result{}, fmt.Errorf("read %s: not a sharechaos result: %w", path, err)
	}
	return r, nil
}

// ReadResult reads dir/result.json (ReadResultJSON).
func ReadResult(dir string) (Result, error) {
	return ReadResultJSON(filepath.Join(dir, ResultFile))
}

// WriteBenchJSON writes dir/bench.json atomically.
func WriteBenchJSON(dir string, b Bench) error {
	return writeJSON(filepath.Join(dir, BenchFile), b)
}

// ReadBenchJSON reads a bench.json.
func ReadBenchJSON(path string) (Bench, error) {
	var b Bench
	return b, readJSON(path, &b)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return atomicfile.Write(path, append(b, '\n'))
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read report: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
