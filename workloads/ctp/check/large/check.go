package large

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/ctp/check"
)

// gcPercent is the GC target while Check runs.
const gcPercent = 20

// selection is the part of a cell judged in full: the ids (a bitset over id
// numbers) and transactions that are not plain.
type selection struct {
	ids  []uint64
	txns map[txnKey]bool
}

func newSelection(n int) *selection {
	return &selection{ids: make([]uint64, (n+63)/64), txns: map[txnKey]bool{}}
}

func (s *selection) addID(id uint32) {
	if int(id/64) < len(s.ids) {
		s.ids[id/64] |= 1 << (id % 64)
	}
}

func (s *selection) hasID(id uint32) bool {
	return int(id/64) < len(s.ids) && s.ids[id/64]&(1<<(id%64)) != 0
}

// Check judges the streamed read-back in dir (its histories in
// dir/histories) with the in-memory checker's judgement, in bounded memory.
//
// A record is plain when it was seeded once, polled once, and has exactly
// one output, valid, from a transaction that committed, is not torn and was
// no zombie's: no sub-checker says anything about it but "input, processed".
// Passes over the compact files and the histories (read as bytes, not
// decoded) find every record and transaction that is not plain; then the
// in-memory checker (check.RunSubset) judges the sub-observation of those,
// with everything the histories say about them, and the plain records count
// as input and processed. So the verdict, the counts, the anomalies and
// their examples are the in-memory checker's own.
//
// Memory: about 15 bytes per input id (where it was seeded, its valid
// outputs, its polls, one selection bit), a map entry per transaction, one
// trimmed event per poll, and the sub-observation.
func Check(dir string, allowed check.Allowed) (check.Result, error) {
	// The arrays are live for the whole check and the garbage is the lines'
	// decoding: collecting at 20% growth instead of 100% keeps the resident
	// set near the live data (measured: 70 -> 45 bytes per record at 1M) for
	// a few percent more CPU.
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	var meta Meta
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return check.Result{}, fmt.Errorf("check large run: %w", err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return check.Result{}, fmt.Errorf("check large run: %s: %w", MetaFile, err)
	}
	ws := NewWorkers()
	for _, w := range meta.Workers {
		ws.Of(w)
	}

	// Inputs, into dense arrays by id number.
	var (
		seededPart []int32
		seededOff  []int64
		seeded     []bool
		reseeded   = map[uint32]bool{}
		inputs     int
	)
	if err := eachFile[inputRec](dir, InputsFile, func(in inputRec) error {
		if in.ID == noID {
			return fmt.Errorf("an input key is not an r-%%06d id: the large path cannot index it")
		}
		for int(in.ID) >= len(seeded) {
			seededPart, seededOff, seeded = append(seededPart, 0), append(seededOff, 0), append(seeded, false)
		}
		if seeded[in.ID] {
			reseeded[in.ID] = true
			return nil
		}
		seeded[in.ID], seededPart[in.ID], seededOff[in.ID] = true, in.Partition, in.Offset
		inputs++
		return nil
	}); err != nil {
		return check.Result{}, err
	}
	n := len(seeded)

	paths, err := historyFiles(filepath.Join(dir, HistoriesDir))
	if err != nil {
		return check.Result{}, err
	}
	h, err := passA(paths, ws, n)
	if err != nil {
		return check.Result{}, err
	}

	// Outputs: count the valid ones per id, the visible ones per transaction,
	// and select what is not plain.
	sel := newSelection(n)
	valid := make([]uint8, n)
	oddIdx := map[int]bool{}
	var idx int
	if err := eachFile[outputRec](dir, OutputsFile, func(o outputRec) error {
		i := idx
		idx++
		var t *txnState
		if o.Flags&flagHasTxn != 0 {
			if ti, ok := h.txns[keyOf(o.Worker, int64(o.Txn))]; ok {
				t = &h.states[ti]
			}
		}
		if t != nil {
			t.visible++
		}
		if o.odd() || int(o.ID) >= n || !seeded[o.ID] || reseeded[o.ID] ||
			seededPart[o.ID] != o.SrcPart || seededOff[o.ID] != o.SrcOffset {
			// No input's plain processing (a phantom, corrupted, misattributed,
			// or of a reseeded id): judged in full, with its transaction.
			oddIdx[i] = true
			if o.ID != noID {
				sel.addID(o.ID)
			}
			if o.Flags&flagHasTxn != 0 {
				sel.txns[keyOf(o.Worker, int64(o.Txn))] = true
			}
			return nil
		}
		if valid[o.ID] < 255 {
			valid[o.ID]++
		}
		if t == nil || t.outcome() != txnCommitted {
			sel.addID(o.ID)
			if o.Flags&flagHasTxn != 0 {
				sel.txns[keyOf(o.Worker, int64(o.Txn))] = true
			}
		}
		return nil
	}); err != nil {
		return check.Result{}, err
	}
	for id := range n {
		if !seeded[id] {
			continue
		}
		if valid[id] != 1 || h.polls[id] != 1 || reseeded[uint32(id)] {
			sel.addID(uint32(id))
		}
	}
	for k, ti := range h.txns {
		if t := &h.states[ti]; t.visible > 0 && t.sent > t.visible || zombie(k, t, meta, ws, h) {
			sel.txns[k] = true
		}
	}
	closeOver(h, sel)

	plain := 0
	for id := range n {
		if seeded[id] && !sel.hasID(uint32(id)) {
			plain++
		}
	}
	seeded, seededPart, seededOff, valid = nil, nil, nil, nil
	h.txns, h.states, h.polls, h.keys, h.txnOf, h.more = nil, nil, nil, nil, nil, nil

	// The sub-observation, judged in full.
	obs := ctp.Observation{Mode: meta.Mode, Realization: meta.Realization, InputTopic: meta.InputTopic,
		ShareStart: meta.ShareStart, ShareStartReported: meta.ShareStartReported, ShareStartRule: meta.ShareStartRule,
		InputEnd: meta.InputEnd, DeliveryLimit: meta.DeliveryLimit}
	if err := eachFile[inputRec](dir, InputsFile, func(in inputRec) error {
		if sel.hasID(in.ID) {
			obs.Inputs = append(obs.Inputs, ctp.Input{ID: ctp.InputID(int(in.ID)), Partition: in.Partition, Offset: in.Offset})
		}
		return nil
	}); err != nil {
		return check.Result{}, err
	}
	odd, err := readOdd(dir, oddIdx)
	if err != nil {
		return check.Result{}, err
	}
	idx = 0
	if err := eachFile[outputRec](dir, OutputsFile, func(o outputRec) error {
		i := idx
		idx++
		if oddIdx[i] || sel.hasID(o.ID) || o.Flags&flagHasTxn != 0 && sel.txns[keyOf(o.Worker, int64(o.Txn))] {
			obs.Outputs = append(obs.Outputs, decodeOutput(o, i, meta, odd))
		}
		return nil
	}); err != nil {
		return check.Result{}, err
	}
	if obs.History, err = passB(paths, ws, sel); err != nil {
		return check.Result{}, err
	}
	return check.RunSubset(obs, allowed, check.Whole{Inputs: inputs, Processed: plain}), nil
}

// zombie: the transaction committed after its worker's next incarnation
// started (the zombie-commits check's condition).
func zombie(k txnKey, t *txnState, meta Meta, ws *Workers, h *histories) bool {
	if !t.sawCommit || t.commitAt == 0 {
		return false
	}
	names := ws.Names()
	w := int(uint64(k) >> 32)
	if w >= len(names) {
		return false
	}
	next := nextIncarnation(names[w])
	at, ok := h.starts[next]
	return next != "" && ok && t.commitAt > at
}

// nextIncarnation is slot.(incarnation+1), "" for a name of another form.
func nextIncarnation(worker string) string {
	var slot, inc int
	if _, err := fmt.Sscanf(worker, "w%d.%d", &slot, &inc); err != nil || ctp.WorkerName(slot, inc) != worker {
		return ""
	}
	return ctp.WorkerName(slot, inc+1)
}

func readOdd(dir string, want map[int]bool) (map[int]oddOutput, error) {
	out := map[int]oddOutput{}
	f, err := os.Open(filepath.Join(dir, OddFile))
	if err != nil {
		return nil, fmt.Errorf("check large run: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var o oddOutput
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			return nil, fmt.Errorf("check large run: %s: %w", OddFile, err)
		}
		if want[o.Index] {
			out[o.Index] = o
		}
	}
	return out, sc.Err()
}

func eachFile[T any, P record[T]](dir, name string, f func(T) error) error {
	fh, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("check large run: %w", err)
	}
	defer fh.Close()
	if err := each[T, P](fh, f); err != nil {
		return fmt.Errorf("check large run: %s: %w", name, err)
	}
	return nil
}

func workerName(meta Meta, i uint32) string {
	if int(i) < len(meta.Workers) {
		return meta.Workers[i]
	}
	return fmt.Sprintf("worker#%d", i)
}
