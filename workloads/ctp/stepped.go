package ctp

import (
	"time"

	"github.com/sharechaos/sharechaos/internal/history"
)

// The lines a stepped worker process reads (WorkerConfig.Stepped).
const (
	StepCommand = "step"
	StopCommand = "stop"
)

// SteppedAnswer is a stepped worker process's answer to one step: its
// StepResult and the transaction it ran, or the error that ended the
// worker. The Java worker writes it (clients/java/worker's StepResult).
type SteppedAnswer struct {
	Records   int    `json:"records"`
	Outcome   string `json:"outcome"`
	CommitNS  int64  `json:"commit_ns"`
	TotalNS   int64  `json:"total_ns"`
	AckNS     int64  `json:"ack_ns"`
	TxnAcksNS int64  `json:"txn_acks_ns"`
	// Txn is the worker's transaction sequence number (the outputs' txn
	// header); 0 when the step ran none.
	Txn   int64  `json:"txn"`
	Error string `json:"error,omitempty"`
}

// Result is the answer as the Go worker's Step returns it.
func (a SteppedAnswer) Result() StepResult {
	return StepResult{Records: a.Records, Outcome: history.Type(a.Outcome), Commit: time.Duration(a.CommitNS),
		Total: time.Duration(a.TotalNS), Ack: time.Duration(a.AckNS), TxnAcks: time.Duration(a.TxnAcksNS)}
}
