package suites

import (
	"encoding/json"
	"path/filepath"

	"github.com/sharechaos/sharechaos/reports"
)

// writeResult writes result.json atomically.
func writeResult(dir string, res reports.Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return reports.WriteFileAtomic(filepath.Join(dir, "result.json"), append(b, '\n'))
}

// writeRun writes every report file of a run.
func writeRun(dir string, res reports.Result) error {
	return writeResult(dir, res)
}
