package large

import (
	"sync"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Meta is meta.json: what the binary files do not hold.
type Meta struct {
	Mode          ctp.AckMode     `json:"mode"`
	Realization   string          `json:"realization,omitempty"`
	DeliveryLimit int32           `json:"delivery_limit"`
	InputTopic    string          `json:"input_topic"`
	ShareStart    map[int32]int64 `json:"share_start"`
	// ShareStartReported and ShareStartRule: ctp.Observation's.
	ShareStartReported map[int32]int64  `json:"share_start_reported,omitempty"`
	ShareStartRule     map[int32]string `json:"share_start_rule,omitempty"`
	InputEnd           map[int32]int64  `json:"input_end"`
	// Workers is the worker table outputs and transactions index into.
	Workers []string `json:"workers"`
	Records int      `json:"records"`
}

// Workers interns worker names while a read-back streams.
type Workers struct {
	// mu: the history passes read files in parallel (history_pass.go).
	mu    sync.Mutex
	index map[string]uint32
	names []string
}

// NewWorkers returns an empty worker table.
func NewWorkers() *Workers { return &Workers{index: map[string]uint32{}} }

// Of returns the index of name, adding it.
func (w *Workers) Of(name string) uint32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	i, ok := w.index[name]
	if !ok {
		i = uint32(len(w.names))
		w.index[name] = i
		w.names = append(w.names, name)
	}
	return i
}

// Names is the table, index order.
func (w *Workers) Names() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.names
}

// EncodeInput is in as stored.
func EncodeInput(in ctp.Input) inputRec {
	return inputRec{ID: ParseID(in.ID), Partition: in.Partition, Offset: in.Offset}
}

// EncodeOutput is o as stored, its content checked now against what its key
// says (the in-memory checker's outputFaultOf, split so the strings need not
// be kept).
func EncodeOutput(o ctp.Output, inputTopic string, ws *Workers) outputRec {
	r := outputRec{ID: ParseID(o.Key), Partition: o.Partition, Offset: o.Offset}
	if o.Value == ctp.Transform(ctp.Payload(o.Key)) {
		r.Flags |= flagValueOK
	}
	if topic, p, off, err := ctp.ParseSrc(o.Src); err == nil {
		r.Flags |= flagSrcOK
		r.SrcPart, r.SrcOffset = p, off
		if topic == inputTopic {
			r.Flags |= flagTopicOK
		}
	}
	if o.Worker != "" {
		r.Flags |= flagHasTxn
		r.Worker, r.Txn = ws.Of(o.Worker), uint32(o.Txn)
	}
	return r
}

const allOK = flagValueOK | flagSrcOK | flagTopicOK

// odd reports whether r cannot be rebuilt from its flags alone.
func (r outputRec) odd() bool { return r.ID == noID || r.Flags&allOK != allOK }

// oddOutput is one line of OddFile: the output's index in OutputsFile and
// its strings.
type oddOutput struct {
	Index int    `json:"i"`
	Key   string `json:"key"`
	Value string `json:"value"`
	Src   string `json:"src"`
}

// decodeOutput rebuilds output i; odd holds the outputs the flags cannot.
func decodeOutput(r outputRec, i int, meta Meta, odd map[int]oddOutput) ctp.Output {
	o := ctp.Output{Partition: r.Partition, Offset: r.Offset}
	if r.Flags&flagHasTxn != 0 {
		o.Worker, o.Txn = workerName(meta, r.Worker), int64(r.Txn)
	}
	if x, ok := odd[i]; ok {
		o.Key, o.Value, o.Src = x.Key, x.Value, x.Src
		return o
	}
	o.Key = ctp.InputID(int(r.ID))
	o.Value = ctp.Transform(ctp.Payload(o.Key))
	o.Src = ctp.Src(meta.InputTopic, r.SrcPart, r.SrcOffset)
	return o
}
