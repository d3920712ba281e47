package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// History is every event of a cell, from all its history files, ordered by time.
type History []Event

// ReadFile reads one JSONL history file. A torn last line (a process killed in
// the middle of a write cannot produce one, but a full disk can) is ignored;
// any other undecodable line is an error naming file and line.
func ReadFile(path string) (History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer f.Close()
	return decode(f, path)
}

func decode(r io.Reader, name string) (History, error) {
	var h History
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	line := 0
	var pendingErr error
	for sc.Scan() {
		line++
		if pendingErr != nil {
			return nil, pendingErr
		}
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Only tolerated if it is the last line.
			pendingErr = fmt.Errorf("read history %s line %d: %w", name, line, err)
			continue
		}
		h = append(h, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read history %s: %w", name, err)
	}
	return h, nil
}

// ReadDir reads every *.jsonl file in dir and merges them in time order
// (stable: events of one file keep their order).
func ReadDir(dir string) (History, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("read histories: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("read histories: %w", &NoHistoryError{Dir: dir})
	}
	sort.Strings(paths)
	var all History
	for _, p := range paths {
		h, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		all = append(all, h...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].TS < all[j].TS })
	return all, nil
}

// NoHistoryError says a directory holds no history file.
type NoHistoryError struct{ Dir string }

func (e *NoHistoryError) Error() string { return "no *.jsonl history in " + e.Dir }

// IsNoHistory reports whether err is a NoHistoryError.
func IsNoHistory(err error) bool {
	var n *NoHistoryError
	return errors.As(err, &n)
}
