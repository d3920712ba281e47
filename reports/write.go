package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File names inside a run directory (CONTRACT.md, "One directory per run").
const (
	ResultFile  = "result.json"
	SummaryFile = "summary.md"
	JUnitFile   = "junit.xml"
	HTMLFile    = "report.html"
	BenchFile   = "bench.json"
)

// WriteRun writes a chaos run's reports into dir: result.json, summary.md,
// junit.xml and report.html (figs: each cell's plots by Cell.ID(); may be nil).
// Every file is written atomically, result.json first, so an interrupted run
// keeps whole files. All four are attempted; the errors are joined.
func WriteRun(dir string, r Result, figs Figures) error {
	return errors.Join(
		WriteResultJSON(dir, r),
		writeFile(dir, SummaryFile, func(w io.Writer) error { return WriteSummary(w, r) }),
		writeFile(dir, JUnitFile, func(w io.Writer) error { return WriteJUnit(w, r) }),
		writeFile(dir, HTMLFile, func(w io.Writer) error { return writeHTML(w, r, figs, dir) }),
	)
}

// WriteBench writes a bench run's reports into dir: bench.json, summary.md
// (the comparison table) and report.html (figs: plots per batch size; may be
// nil), atomically.
func WriteBench(dir string, b Bench, figs BenchFigures) error {
	return errors.Join(
		WriteBenchJSON(dir, b),
		writeFile(dir, SummaryFile, func(w io.Writer) error { return WriteBenchSummary(w, b) }),
		writeFile(dir, HTMLFile, func(w io.Writer) error { return WriteBenchHTML(w, b, figs) }),
	)
}

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
func ReadResult(dir string) (Result, error) { return ReadResultJSON(filepath.Join(dir, ResultFile)) }

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
	return WriteFileAtomic(path, append(b, '\n'))
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

// writeFile renders into memory, then writes atomically.
func writeFile(dir, name string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	return WriteFileAtomic(filepath.Join(dir, name), buf.Bytes())
}
