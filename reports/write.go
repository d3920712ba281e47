package reports

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/sharechaos/sharechaos/internal/atomicfile"
	"github.com/sharechaos/sharechaos/result"
	"io"
	"path/filepath"
)

// The renderers' file names inside a run directory (CONTRACT.md, "One
// directory per run"); result.json and bench.json are package result's.
const (
	SummaryFile = "summary.md"
	JUnitFile   = "junit.xml"
	HTMLFile    = "report.html"
)

// WriteRun writes a chaos run's reports into dir: result.json, summary.md,
// junit.xml and report.html (figs: each cell's plots by Cell.ID(); may be nil).
// Every file is written atomically, result.json first, so an interrupted run
// keeps whole files. All four are attempted; the errors are joined.
func WriteRun(dir string, r result.Result, figs result.Figures) error {
	return errors.Join(
		result.WriteResultJSON(dir, r),
		writeFile(dir, SummaryFile, func(w io.Writer) error { return WriteSummary(w, r) }),
		writeFile(dir, JUnitFile, func(w io.Writer) error { return WriteJUnit(w, r) }),
		writeFile(dir, HTMLFile, func(w io.Writer) error { return writeHTML(w, r, figs, dir) }),
	)
}

// WriteBench writes a bench run's reports into dir: bench.json, summary.md
// (the comparison table) and report.html (figs: plots per batch size; may be
// nil), atomically.
func WriteBench(dir string, b result.Bench, figs result.BenchFigures) error {
	return errors.Join(
		result.WriteBenchJSON(dir, b),
		writeFile(dir, SummaryFile, func(w io.Writer) error { return WriteBenchSummary(w, b) }),
		writeFile(dir, HTMLFile, func(w io.Writer) error { return WriteBenchHTML(w, b, figs) }),
	)
}

// writeFile renders into memory, then writes atomically.
func writeFile(dir, name string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	return atomicfile.Write(filepath.Join(dir, name), buf.Bytes())
}
