package large

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Store is a streamed read-back being written: inputs and outputs are
// appended as the topics are read, the transactions reduced from the
// histories at the end.
type Store struct {
	dir     string
	meta    Meta
	workers *Workers
	files   []*os.File
	inputs  *Writer[inputRec, *inputRec]
	outputs *Writer[outputRec, *outputRec]
	odd     *json.Encoder
	oddBuf  *bufio.Writer
	nOut    int
}

// Create starts a streamed read-back in dir.
func Create(dir string, meta Meta) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create large store: %w", err)
	}
	s := &Store{dir: dir, meta: meta, workers: NewWorkers()}
	open := func(name string) (*os.File, error) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("create large store: %w", err)
		}
		s.files = append(s.files, f)
		return f, nil
	}
	var fs [3]*os.File
	for i, n := range []string{InputsFile, OutputsFile, OddFile} {
		f, err := open(n)
		if err != nil {
			s.close()
			return nil, err
		}
		fs[i] = f
	}
	s.inputs, s.outputs = NewWriter[inputRec, *inputRec](fs[0]), NewWriter[outputRec, *outputRec](fs[1])
	s.oddBuf = bufio.NewWriter(fs[2])
	s.odd = json.NewEncoder(s.oddBuf)
	return s, nil
}

// Input appends one input record.
func (s *Store) Input(in ctp.Input) error { return s.inputs.Write(EncodeInput(in)) }

// Output appends one visible output.
func (s *Store) Output(o ctp.Output) error {
	r := EncodeOutput(o, s.meta.InputTopic, s.workers)
	if r.odd() {
		if err := s.odd.Encode(oddOutput{Index: s.nOut, Key: o.Key, Value: o.Value, Src: o.Src}); err != nil {
			return fmt.Errorf("write odd output: %w", err)
		}
	}
	s.nOut++
	return s.outputs.Write(r)
}

// Close flushes the files and writes meta.json.
func (s *Store) Close() error {
	var first error
	for _, w := range []interface{ Flush() error }{s.inputs, s.outputs, s.oddBuf} {
		if err := w.Flush(); err != nil && first == nil {
			first = err
		}
	}
	if err := s.close(); err != nil && first == nil {
		first = err
	}
	s.meta.Workers = s.workers.Names()
	b, err := json.Marshal(s.meta)
	if err == nil {
		err = os.WriteFile(filepath.Join(s.dir, MetaFile), b, 0o644)
	}
	if err != nil && first == nil {
		first = err
	}
	if first != nil {
		return fmt.Errorf("close large store: %w", first)
	}
	return nil
}

func (s *Store) close() error {
	var first error
	for _, f := range s.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.files = nil
	return first
}

// WriteObservation streams an in-memory observation to dir, its history as
// one file per worker (tests, and re-checking a stored cell by this path).
func WriteObservation(dir string, obs ctp.Observation) error {
	s, err := Create(dir, Meta{Mode: obs.Mode, Realization: obs.Realization, DeliveryLimit: obs.DeliveryLimit,
		InputTopic: obs.InputTopic, ShareStart: obs.ShareStart, ShareStartReported: obs.ShareStartReported,
		ShareStartRule: obs.ShareStartRule, InputEnd: obs.InputEnd, Records: len(obs.Inputs)})
	if err != nil {
		return err
	}
	for _, in := range obs.Inputs {
		if err := s.Input(in); err != nil {
			_ = s.Close()
			return err
		}
	}
	for _, o := range obs.Outputs {
		if err := s.Output(o); err != nil {
			_ = s.Close()
			return err
		}
	}
	if err := s.Close(); err != nil {
		return err
	}
	return writeHistories(filepath.Join(dir, HistoriesDir), obs.History)
}

// writeHistories writes h as one JSONL file per worker.
func writeHistories(dir string, h history.History) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write histories: %w", err)
	}
	by := map[string][]byte{}
	for _, e := range h {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("write histories: %w", err)
		}
		by[e.Worker] = append(append(by[e.Worker], b...), '\n')
	}
	for w, b := range by {
		if err := os.WriteFile(filepath.Join(dir, w+".jsonl"), b, 0o644); err != nil {
			return fmt.Errorf("write histories: %w", err)
		}
	}
	return nil
}
