// Package result is the file contract of a run (docs/CONTRACT.md): the
// types result.json and bench.json are made of, their file names, and how
// they are read and written (atomically; a file that does not read as the
// contract is refused). Renderers (package reports), the runner and the bench
// share these types; nothing here draws or formats for people.
package result
