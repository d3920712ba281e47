package ctp

// TxnSeq is the sequence number of the worker's latest transaction (0 before
// the first): the txn header of its outputs. A benchmark that drives Step
// itself pairs it with the worker's Name to find a transaction's outputs
// (worker and txn headers) on the output topic, e.g. to time when they became
// visible. Not safe to call concurrently with Step.
func (w *Worker) TxnSeq() int64 { return w.txnSeq }

// Name is the worker's slot.incarnation, the worker header of its outputs.
func (w *Worker) Name() string { return w.cfg.Name() }
