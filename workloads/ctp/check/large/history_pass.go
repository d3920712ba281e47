package large

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/sharechaos/sharechaos/internal/history"
)

// historyFiles lists a cell's history files in the order history.ReadDir
// reads them.
func historyFiles(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("list histories: %w", err)
	}
	sort.Strings(paths)
	return paths, nil
}

// eachLine calls f with every non-empty line of path and its byte offset;
// the slice is only valid during the call. The file is read through one
// buffer, not mapped: mapped pages of a 3 GB history would count as the
// checker's resident memory.
func eachLine(path string, f func(line []byte, at int64) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read history: %w", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var at int64
	for sc.Scan() {
		line := sc.Bytes()
		pos := at
		at += int64(len(line)) + 1
		if len(line) == 0 {
			continue
		}
		if err := f(line, pos); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read history %s: %w", path, err)
	}
	return nil
}

// lineAt reads the line that starts at offset at of path.
func lineAt(path string, at int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer fh.Close()
	if _, err := fh.Seek(at, 0); err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	line, err := bufio.NewReader(fh).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return nil, fmt.Errorf("read history %s at %d: %w", path, at, err)
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// workerOf interns the worker names of consecutive lines (a file is mostly
// one worker's) without a map lookup per line.
type workerOf struct {
	ws   *Workers
	last []byte
	idx  uint32
	ok   bool
}

func (w *workerOf) of(name []byte) uint32 {
	if !w.ok || !bytes.Equal(name, w.last) {
		w.last, w.idx, w.ok = append(w.last[:0], name...), w.ws.Of(string(name)), true
	}
	return w.idx
}

// txnState is one transaction as its worker saw it (the in-memory checker's
// txnInfo, reduced to what selects the transactions worth judging in full).
type txnState struct {
	commitAt  int64
	sent      uint32
	visible   uint32
	sawCommit bool
	sawAbort  bool
	invoked   bool
}

func (t *txnState) outcome() uint32 {
	switch {
	case t.sawAbort:
		return txnAborted
	case t.sawCommit:
		return txnCommitted
	case t.invoked:
		return txnUnknown
	}
	return txnNeverCommitted
}

// txnKey names a transaction by worker index and sequence number.
type txnKey uint64

func keyOf(worker uint32, txn int64) txnKey { return txnKey(uint64(worker)<<32 | uint64(uint32(txn))) }

// histories is what pass A keeps of the histories. The files are read in
// parallel (forEachFile): txns, states, keys and more are guarded by mu,
// txnOf is written with atomic operations, and polls and starts are
// gathered per reader and merged after the pass.
type histories struct {
	mu     sync.Mutex
	txns   map[txnKey]uint32 // index into states
	states []txnState
	keys   []txnKey // states' keys, by index
	// txnOf is, per id number, one transaction (index+1; 0 none) whose
	// send, txn-acks or commit named it, and more the others (rare: a
	// redelivered or re-sent record), so the selection closes over
	// transactions without another pass over the histories.
	txnOf []uint32
	more  map[uint32][]uint32
	polls []uint8 // per id number: poll ok events that carried it (saturating)
	// starts is each worker's first start event.
	starts map[string]int64
}

// index is the state index of transaction k, adding it.
func (h *histories) index(k txnKey) uint32 {
	h.mu.Lock()
	defer h.mu.Unlock()
	i, ok := h.txns[k]
	if !ok {
		i = uint32(len(h.states))
		h.txns[k] = i
		h.states = append(h.states, txnState{})
		h.keys = append(h.keys, k)
	}
	return i
}

// merge adds what one run of a transaction's lines showed to its state:
// the first commit invoke counts, the sent ids add up, the outcomes join.
func (h *histories) merge(i uint32, run txnState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := &h.states[i]
	if t.commitAt == 0 {
		t.commitAt = run.commitAt
	}
	t.sent += run.sent
	t.sawCommit = t.sawCommit || run.sawCommit
	t.sawAbort = t.sawAbort || run.sawAbort
	t.invoked = t.invoked || run.invoked
}

// fileReaders is how many history files a pass reads at once: one per
// core. The passes are CPU-bound (the read-back has just written the files,
// they are in the page cache), and a cell's histories are one file per
// worker incarnation and the orchestrator's, so there are several.
func fileReaders(files int) int { return max(1, min(files, runtime.GOMAXPROCS(0))) }

// forEachFile calls f on every path, fileReaders at a time; reader is which
// of them (0..fileReaders-1) runs the call, for state kept per reader.
func forEachFile(paths []string, f func(reader, i int) error) error {
	var g errgroup.Group
	var next atomic.Int64
	for reader := range fileReaders(len(paths)) {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return nil
				}
				if err := f(reader, i); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// passA reads every history once, without decoding it: each transaction's
// outcome, distinct sent ids and commit time; how often each id was polled;
// when each worker started.
func passA(paths []string, ws *Workers, nIDs int) (*histories, error) {
	h := &histories{txns: map[txnKey]uint32{}, starts: map[string]int64{},
		txnOf: make([]uint32, nIDs), more: map[uint32][]uint32{}}
	polls := make([][]uint8, fileReaders(len(paths)))
	starts := make([]map[string]int64, len(paths))
	err := forEachFile(paths, func(reader, i int) error {
		if polls[reader] == nil {
			polls[reader] = make([]uint8, nIDs)
		}
		var err error
		starts[i], err = h.readFile(paths[i], ws, polls[reader])
		return err
	})
	if err != nil {
		return nil, err
	}
	// One reader's counts are the total's start; the others add to them.
	h.polls = polls[0]
	if h.polls == nil { // no history file
		h.polls = make([]uint8, nIDs)
	}
	for _, ps := range polls[1:] {
		for id, n := range ps {
			h.polls[id] = uint8(min(int(h.polls[id])+int(n), 255))
		}
	}
	// The first start of a worker in the order the files are listed.
	for _, ss := range starts {
		for w, ts := range ss {
			if _, seen := h.starts[w]; !seen {
				h.starts[w] = ts
			}
		}
	}
	return h, nil
}

// readFile is pass A over one file: its polls counted into polls, its
// transactions merged into h; it returns each worker's first start in it.
func (h *histories) readFile(path string, ws *Workers, polls []uint8) (map[string]int64, error) {
	starts := map[string]int64{}
	var li lineInfo
	var sent []uint32
	wo := &workerOf{ws: ws}
	// cur is the current run of one transaction's lines, merged into its
	// state when the run ends.
	var cur txnState
	var curKey txnKey
	var curIdx uint32
	inRun := false
	flush := func() {
		if inRun {
			slices.Sort(sent)
			cur.sent = uint32(len(slices.Compact(sent)))
			h.merge(curIdx, cur)
		}
		sent = sent[:0]
	}
	err := eachLine(path, func(line []byte, _ int64) error {
		scanHeader(line, &li)
		li.ids = li.ids[:0]
		if f := string(li.f); f == history.FPoll && string(li.typ) == string(history.OK) || f == history.FSend ||
			f == history.FTxnAcks || f == history.FCommit {
			scanIDs(line, &li)
		}
		switch string(li.f) {
		case history.FPoll:
			if string(li.typ) == string(history.OK) {
				for _, id := range li.ids {
					if int(id) < len(polls) && polls[id] < 255 {
						polls[id]++
					}
				}
			}
		case history.FStart:
			w := string(li.worker)
			if _, seen := starts[w]; !seen {
				starts[w] = li.ts
			}
		}
		if li.txn == 0 {
			return nil
		}
		k := keyOf(wo.of(li.worker), li.txn)
		if !inRun || k != curKey {
			flush()
			cur, curKey, curIdx, inRun = txnState{}, k, h.index(k), true
		}
		if f := string(li.f); f == history.FSend || f == history.FTxnAcks || f == history.FCommit {
			h.note(li.ids, curIdx)
		}
		typ := string(li.typ)
		switch string(li.f) {
		case history.FSend:
			sent = append(sent, li.ids...)
		case history.FCommit:
			if typ == string(history.Invoke) && cur.commitAt == 0 {
				cur.commitAt = li.ts
			}
			cur.invoked = true
			switch typ {
			case string(history.OK):
				cur.sawCommit = true
			case string(history.Fail):
				cur.sawAbort = true
			}
		case history.FAbort:
			if typ == string(history.OK) {
				cur.sawAbort = true
			}
		}
		return nil
	})
	flush()
	return starts, err
}

// note records that the transaction with index i named ids.
func (h *histories) note(ids []uint32, i uint32) {
	for _, id := range ids {
		if int(id) >= len(h.txnOf) {
			continue
		}
		if atomic.CompareAndSwapUint32(&h.txnOf[id], 0, i+1) || atomic.LoadUint32(&h.txnOf[id]) == i+1 {
			continue
		}
		h.mu.Lock()
		if !slices.Contains(h.more[id], i) {
			h.more[id] = append(h.more[id], i)
		}
		h.mu.Unlock()
	}
}

// closeOver extends the selection to every transaction that named a
// selected id, then to every id those transactions named: a selected
// transaction is judged with all its records, a selected record with all its
// transactions. The ids added are plain (one poll, one valid output), so
// they have no transaction besides the one that added them.
func closeOver(h *histories, sel *selection) {
	for id := range h.txnOf {
		if !sel.hasID(uint32(id)) {
			continue
		}
		if t := h.txnOf[id]; t != 0 {
			sel.txns[h.keys[t-1]] = true
		}
		for _, t := range h.more[uint32(id)] {
			sel.txns[h.keys[t]] = true
		}
	}
	for id, t := range h.txnOf {
		if t != 0 && sel.txns[h.keys[t-1]] {
			sel.addID(uint32(id))
		}
	}
	for id, ts := range h.more {
		for _, t := range ts {
			if sel.txns[h.keys[t]] {
				sel.addID(id)
			}
		}
	}
}

// passB decodes the lines the sub-observation needs (pass B2): every line
// of a selected transaction; every line that names a selected id, its
// record lists cut to the selected ids; the line right after a selected
// transaction's line and the first two polls after it (cut: a loss cause
// reads the worker's first poll after its transaction, an implicit worker's
// accept; a duplicate's cause reads the worker's next step after its commit,
// and an implicit worker's second poll, after whose fetch its ack had
// left: check's ack_fate.go); the lifecycle lines (no transaction, no
// record); each file's first and last line (when a worker started and
// stopped doing anything); and everything a worker did after a fault fired
// on it (the fault-points check).
func passB(paths []string, ws *Workers, sel *selection) (history.History, error) {
	kept := make([]history.History, len(paths))
	if err := forEachFile(paths, func(_, i int) error {
		var err error
		kept[i], err = passBFile(paths[i], ws, sel)
		return err
	}); err != nil {
		return nil, err
	}
	// In the files' order before the stable sort: the order one reader
	// would have given.
	var out history.History
	for _, k := range kept {
		out = append(out, k...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TS < out[j].TS })
	return out, nil
}

// passBFile is pass B over one file: the lines it keeps, decoded.
func passBFile(p string, ws *Workers, sel *selection) (history.History, error) {
	var out history.History
	var li lineInfo
	wo := &workerOf{ws: ws}
	var lastKey txnKey
	lastSel, haveKey := false, false
	selected := func(k txnKey) bool {
		if !haveKey || k != lastKey {
			lastKey, lastSel, haveKey = k, sel.txns[k], true
		}
		return lastSel
	}
	decode := func(line []byte) error {
		var e history.Event
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Errorf("read history %s: %w", p, err)
		}
		trim(&e, sel)
		out = append(out, e)
		return nil
	}
	lastKept, first, afterFault, nextStep := true, true, false, false
	nextPolls := 0
	var lastAt int64
	err := eachLine(p, func(line []byte, at int64) error {
		scanLine(line, &li)
		if string(li.f) == history.FFaultFired {
			afterFault = true
		}
		poll := string(li.f) == history.FPoll && string(li.typ) == string(history.OK)
		selTxn := li.txn != 0 && selected(keyOf(wo.of(li.worker), li.txn))
		keep := first || afterFault || len(li.ids) == 0 && li.txn == 0 || selTxn || poll && nextPolls > 0 || nextStep
		nextStep = selTxn
		if poll && nextPolls > 0 {
			nextPolls--
		}
		if selTxn {
			nextPolls = 2
		}
		if string(li.f) == history.FResumed {
			afterFault = false
		}
		if !keep {
			for _, id := range li.ids {
				if sel.hasID(id) {
					keep = true
					break
				}
			}
		}
		first, lastKept = false, keep
		if !keep {
			lastAt = at
			return nil
		}
		return decode(line)
	})
	if err != nil {
		return nil, err
	}
	if !lastKept {
		line, err := lineAt(p, lastAt)
		if err != nil {
			return nil, err
		}
		if err := decode(line); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// trim cuts an event's record lists to the selected ids.
func trim(e *history.Event, sel *selection) {
	if len(e.Records) > 0 {
		rs := e.Records[:0]
		for _, r := range e.Records {
			if id := ParseID(r.ID); id == noID || sel.hasID(id) {
				rs = append(rs, r)
			}
		}
		e.Records = slices.Clip(rs)
	}
	if len(e.IDs) > 0 {
		ids := e.IDs[:0]
		for _, s := range e.IDs {
			if id := ParseID(s); id == noID || sel.hasID(id) {
				ids = append(ids, s)
			}
		}
		e.IDs = slices.Clip(ids)
	}
}
