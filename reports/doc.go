// Package reports renders what a run found for people and tools:
// summary.md and report.html (with plots) for people, junit.xml for CI,
// .hgrm files for latency tools. The result.json contract it renders from is
// package result's.
package reports
