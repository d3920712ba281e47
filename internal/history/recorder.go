package history

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// Recorder appends events to one JSONL file. Each event is one write(2) of one
// whole line on an O_APPEND file, with no user-space buffer: when the process is
// SIGKILLed right after Record returns, the event is already in the kernel and
// survives. That is what lets a worker kill itself at a crash point without
// losing the steps it completed.
type Recorder struct {
	mu     sync.Mutex
	f      *os.File
	worker string
	now    func() time.Time
}

// Stdout as a history path is the process's standard output: a worker on
// another host streams its history back through the command that started
// it (one write per line, as to a file).
const Stdout = "-"

// Create opens (appending, creating if needed) the history file at path for
// events of worker.
func Create(path, worker string) (*Recorder, error) {
	if path == Stdout {
		return &Recorder{f: os.Stdout, worker: worker, now: time.Now}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open history: %w", err)
	}
	return &Recorder{f: f, worker: worker, now: time.Now}, nil
}

// Record stamps e with the time and the worker (unless set) and appends it.
func (r *Recorder) Record(e Event) error {
	if e.TS == 0 {
		e.TS = r.now().UnixNano()
	}
	if e.Worker == "" {
		e.Worker = r.worker
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.f.Write(line); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	return nil
}

// Close closes the file.
func (r *Recorder) Close() error { return r.f.Close() }
