package large

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/sharechaos/sharechaos/internal/verdict"
)

// Result is what the large path found: the counts and, per anomaly, how many
// and the first examples (smallest ids first, as the in-memory checker).
type Result struct {
	Counts    verdict.Counts
	Anomalies map[string]*Found
}

// Found is one anomaly kind: its count and up to verdict.MaxExamples examples.
type Found struct {
	Count    int
	Examples []string
}

func (r *Result) report(name string, example func() string) {
	f := r.Anomalies[name]
	if f == nil {
		f = &Found{}
		r.Anomalies[name] = f
	}
	f.Count++
	if len(f.Examples) < verdict.MaxExamples {
		f.Examples = append(f.Examples, example())
	}
}

// txnState is one transaction: 12 bytes, kept in a slice indexed through a
// map from (worker, txn).
type txnState struct {
	outcome uint32
	sent    uint32
	visible uint32
}

// Check judges a streamed read-back in dir in bounded memory: about 13 bytes
// per input id (where it was seeded, how many valid outputs it has) and 12
// per transaction, plus a map entry per transaction.
func Check(dir string) (Result, error) {
	res := Result{Anomalies: map[string]*Found{}}
	var meta Meta
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return res, fmt.Errorf("check large run: %w", err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return res, fmt.Errorf("check large run: %s: %w", MetaFile, err)
	}

	// Pass 1: the inputs, into dense arrays by id number.
	var (
		seededPart []int32
		seededOff  []int64
		seeded     []bool
		reseeded   = map[uint32][]inputRec{}
	)
	if meta.Records > 0 {
		seededPart = make([]int32, 0, meta.Records)
		seededOff = make([]int64, 0, meta.Records)
		seeded = make([]bool, 0, meta.Records)
	}
	if err := eachFile(dir, InputsFile, func(in inputRec) {
		if in.ID == noID {
			return // not an id this path can index; the in-memory path judges such runs
		}
		for int(in.ID) >= len(seeded) {
			seededPart, seededOff, seeded = append(seededPart, 0), append(seededOff, 0), append(seeded, false)
		}
		if seeded[in.ID] {
			reseeded[in.ID] = append(reseeded[in.ID], in)
			return
		}
		seeded[in.ID], seededPart[in.ID], seededOff[in.ID] = true, in.Partition, in.Offset
		res.Counts.Input++
	}); err != nil {
		return res, err
	}

	// Pass 2: the transactions the histories were reduced to.
	txnIdx := map[uint64]uint32{}
	var txns []txnState
	if err := eachFile(dir, TxnsFile, func(t txnRec) {
		txnIdx[uint64(t.Worker)<<32|uint64(t.Txn)] = uint32(len(txns))
		txns = append(txns, txnState{outcome: t.Outcome, sent: t.Sent})
	}); err != nil {
		return res, err
	}

	// Pass 3: the outputs, in topic order; the invalid and aborted ones are
	// rare and kept to be sorted for their examples.
	valid := make([]uint8, len(seeded))
	var phantoms, badContent, aborted []outputRec
	if err := eachFile(dir, OutputsFile, func(o outputRec) {
		if o.Flags&flagHasTxn != 0 {
			if i, ok := txnIdx[uint64(o.Worker)<<32|uint64(o.Txn)]; ok {
				txns[i].visible++
				if oc := txns[i].outcome; oc == txnAborted || oc == txnNeverCommitted {
					aborted = append(aborted, o)
				}
			}
		}
		if o.ID == noID || int(o.ID) >= len(seeded) || !seeded[o.ID] {
			phantoms = append(phantoms, o)
			return
		}
		if o.Flags&(flagValueOK|flagSrcOK|flagTopicOK) != flagValueOK|flagSrcOK|flagTopicOK ||
			!seededAt(o, seededPart, seededOff, reseeded) {
			badContent = append(badContent, o)
			return
		}
		if valid[o.ID] < 255 {
			valid[o.ID]++
		}
	}); err != nil {
		return res, err
	}

	// Pass 4: every id, in id order.
	for id := range seeded {
		if !seeded[id] {
			continue
		}
		n := valid[id]
		switch {
		case n == 0:
			done := isDone(meta, seededPart[id], seededOff[id])
			for _, in := range reseeded[uint32(id)] {
				done = done && isDone(meta, in.Partition, in.Offset)
			}
			name := fmt.Sprintf("r-%06d", id)
			if !done {
				res.Counts.Unseen++
				res.report(verdict.AnomalyUnseen, func() string { return name + ": no committed output, not done by the group" })
				continue
			}
			res.Counts.Lost++
			res.report(verdict.AnomalyLost, func() string { return name + ": no committed output, the group is done with it" })
		case n >= 2:
			res.Counts.Processed++
			res.Counts.Duplicated++
			res.Counts.ExtraOutputs += int(n) - 1
			res.report(verdict.AnomalyDuplicate, func() string { return fmt.Sprintf("r-%06d: %d committed outputs", id, n) })
		default:
			res.Counts.Processed++
		}
	}
	for _, o := range sorted(phantoms) {
		res.Counts.Phantoms++
		res.report(verdict.AnomalyPhantomOutput, func() string {
			return fmt.Sprintf("output p%d o%d: its key is no input id", o.Partition, o.Offset)
		})
	}
	for _, o := range sorted(badContent) {
		res.Counts.Phantoms++
		res.report(verdict.AnomalyPhantomOutput, func() string {
			return fmt.Sprintf("output p%d o%d of r-%06d is not its input's processing", o.Partition, o.Offset, o.ID)
		})
	}
	for _, o := range sorted(aborted) {
		res.Counts.AbortedReads++
		res.report(verdict.AnomalyAbortedRead, func() string {
			return fmt.Sprintf("output p%d o%d of r-%06d is visible, but its transaction %s/%d did not commit",
				o.Partition, o.Offset, o.ID, workerName(meta, o.Worker), o.Txn)
		})
	}
	type tornTxn struct {
		key uint64
		t   txnState
	}
	var torn []tornTxn
	for k, i := range txnIdx {
		if t := txns[i]; t.visible > 0 && t.sent > t.visible {
			torn = append(torn, tornTxn{k, t})
		}
	}
	sort.Slice(torn, func(i, j int) bool { return torn[i].key < torn[j].key })
	for _, t := range torn {
		res.Counts.TornTxns++
		res.report(verdict.AnomalyTornTransaction, func() string {
			return fmt.Sprintf("%s/%d produced %d outputs but only %d are visible",
				workerName(meta, uint32(t.key>>32)), uint32(t.key), t.t.sent, t.t.visible)
		})
	}
	return res, nil
}

func eachFile[T any](dir, name string, f func(T)) error {
	fh, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("check large run: %w", err)
	}
	defer fh.Close()
	if err := each(fh, f); err != nil {
		return fmt.Errorf("check large run: %s: %w", name, err)
	}
	return nil
}

func seededAt(o outputRec, part []int32, off []int64, reseeded map[uint32][]inputRec) bool {
	if part[o.ID] == o.SrcPart && off[o.ID] == o.SrcOffset {
		return true
	}
	for _, in := range reseeded[o.ID] {
		if in.Partition == o.SrcPart && in.Offset == o.SrcOffset {
			return true
		}
	}
	return false
}

func isDone(meta Meta, p int32, off int64) bool {
	start, known := meta.ShareStart[p]
	return known && off < start
}

func workerName(meta Meta, i uint32) string {
	if int(i) < len(meta.Workers) {
		return meta.Workers[i]
	}
	return fmt.Sprintf("worker#%d", i)
}

// sorted orders outputs by id, then where they sit (the in-memory order).
func sorted(os []outputRec) []outputRec {
	sort.Slice(os, func(i, j int) bool {
		a, b := os[i], os[j]
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
	return os
}
