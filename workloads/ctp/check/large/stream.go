package large

import (
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
	inputs  *Writer[inputRec]
	outputs *Writer[outputRec]
	txns    *Writer[txnRec]
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
	for i, n := range []string{InputsFile, OutputsFile, TxnsFile} {
		f, err := open(n)
		if err != nil {
			s.close()
			return nil, err
		}
		fs[i] = f
	}
	s.inputs, s.outputs, s.txns = NewWriter[inputRec](fs[0]), NewWriter[outputRec](fs[1]), NewWriter[txnRec](fs[2])
	return s, nil
}

// Input appends one input record.
func (s *Store) Input(in ctp.Input) error { return s.inputs.Write(EncodeInput(in)) }

// Output appends one visible output.
func (s *Store) Output(o ctp.Output) error {
	return s.outputs.Write(EncodeOutput(o, s.meta.InputTopic, s.workers))
}

// Txn appends one transaction by worker name.
func (s *Store) Txn(worker string, txn int64, outcome, sent uint32) error {
	return s.txns.Write(txnRec{Worker: s.workers.Of(worker), Txn: uint32(txn), Outcome: outcome, Sent: sent})
}

// Histories reduces the histories to one record per transaction (its
// outcome as its worker saw it, how many distinct ids it sent) and appends
// them. It holds one transaction's ids at a time per worker, not the history.
func (s *Store) Histories(h history.History) error {
	type key struct {
		worker string
		txn    int64
	}
	type acc struct {
		sent                             map[string]struct{}
		sawAbort, sawCommit, commitInvok bool
	}
	open := map[key]*acc{}
	var order []key
	for _, e := range h {
		if e.Txn == 0 {
			continue
		}
		k := key{e.Worker, e.Txn}
		a := open[k]
		if a == nil {
			a = &acc{sent: map[string]struct{}{}}
			open[k] = a
			order = append(order, k)
		}
		switch e.F {
		case history.FSend:
			for _, id := range e.IDs {
				a.sent[id] = struct{}{}
			}
		case history.FCommit:
			a.commitInvok = true
			switch e.Type {
			case history.OK:
				a.sawCommit = true
			case history.Fail:
				a.sawAbort = true
			}
		case history.FAbort:
			if e.Type == history.OK {
				a.sawAbort = true
			}
		}
	}
	for _, k := range order {
		a := open[k]
		oc := txnNeverCommitted
		switch {
		case a.sawAbort:
			oc = txnAborted
		case a.sawCommit:
			oc = txnCommitted
		case a.commitInvok:
			oc = txnUnknown
		}
		if err := s.Txn(k.worker, k.txn, oc, uint32(len(a.sent))); err != nil {
			return err
		}
	}
	return nil
}

// Close flushes the files and writes meta.json.
func (s *Store) Close() error {
	var first error
	for _, w := range []interface{ Flush() error }{s.inputs, s.outputs, s.txns} {
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

// WriteObservation streams an in-memory observation to dir (tests, and
// re-checking a stored cell by the large path).
func WriteObservation(dir string, obs ctp.Observation) error {
	s, err := Create(dir, Meta{Mode: obs.Mode, InputTopic: obs.InputTopic, ShareStart: obs.ShareStart,
		InputEnd: obs.InputEnd, Records: len(obs.Inputs)})
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
	if err := s.Histories(obs.History); err != nil {
		_ = s.Close()
		return err
	}
	return s.Close()
}
