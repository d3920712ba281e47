// Package large is the checker's path for runs too large to hold in memory:
// the read-back is streamed to compact binary files while the topics are
// read (ReadCell), and checked from them and the workers' history files
// (Check) in passes that keep about 20 bytes per record, instead of the
// in-memory index's ~1.4 KB.
//
// Record ids are ctp.InputID's r-%06d keys, so an id is encoded as its number
// and the per-id state lives in arrays indexed by it; an output key that is
// not of that form is no input id (a phantom) and is kept whole, with the
// other outputs the compact form cannot rebuild, in OddFile.
//
// The judgement is the in-memory checker's own: the passes select every
// record and transaction that is not plain, and check.RunSubset judges that
// sub-observation (Check's comment says what plain means).
package large

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// File names of a streamed read-back.
const (
	InputsFile  = "inputs.bin"
	OutputsFile = "outputs.bin"
	// OddFile holds, as JSON lines, the outputs the flags cannot rebuild
	// (a key that is no r-%06d id, a wrong value, an unreadable src):
	// rare, and needed whole for their examples.
	OddFile = "odd-outputs.jsonl"
	// HistoriesDir holds the workers' histories, as a cell writes them.
	HistoriesDir = "histories"
	MetaFile     = "meta.json"
)

// noID marks a key that is not an r-%06d input id.
const noID = ^uint32(0)

// ParseID returns the number of an r-%06d id, noID for any other key.
func ParseID(key string) uint32 {
	if !strings.HasPrefix(key, "r-") || len(key) < 8 {
		return noID
	}
	n, err := strconv.ParseUint(key[2:], 10, 32)
	if err != nil || n >= uint64(noID) || ctp.InputID(int(n)) != key {
		return noID
	}
	return uint32(n)
}

// inputRec is one input: 16 bytes on disk (inputSize).
type inputRec struct {
	ID        uint32
	Partition int32
	Offset    int64
}

// Output flags, computed while the output topic is read so the value and
// the src header need not be stored.
const (
	flagValueOK = 1 << iota // value == Transform(Payload(key))
	flagSrcOK               // the src header parsed
	flagTopicOK             // the src header names the input topic
	flagHasTxn              // worker and txn headers present
)

// outputRec is one visible output: 40 bytes on disk (outputSize).
type outputRec struct {
	ID        uint32
	SrcPart   int32
	SrcOffset int64
	Worker    uint32 // index into the worker table (meta.json)
	Txn       uint32
	Partition int32
	Offset    int64
	Flags     uint32
}

const (
	txnCommitted uint32 = iota + 1
	txnAborted
	txnUnknown
	txnNeverCommitted
)

// record is a fixed-size little-endian record of a binary file.
type record[T any] interface {
	*T
	size() int
	put(b []byte)
	get(b []byte)
}

const inputSize, outputSize = 16, 40

func (r *inputRec) size() int { return inputSize }
func (r *inputRec) put(b []byte) {
	le.PutUint32(b[0:], r.ID)
	le.PutUint32(b[4:], uint32(r.Partition))
	le.PutUint64(b[8:], uint64(r.Offset))
}
func (r *inputRec) get(b []byte) {
	r.ID, r.Partition, r.Offset = le.Uint32(b[0:]), int32(le.Uint32(b[4:])), int64(le.Uint64(b[8:]))
}

func (r *outputRec) size() int { return outputSize }
func (r *outputRec) put(b []byte) {
	le.PutUint32(b[0:], r.ID)
	le.PutUint32(b[4:], uint32(r.SrcPart))
	le.PutUint64(b[8:], uint64(r.SrcOffset))
	le.PutUint32(b[16:], r.Worker)
	le.PutUint32(b[20:], r.Txn)
	le.PutUint32(b[24:], uint32(r.Partition))
	le.PutUint64(b[28:], uint64(r.Offset))
	le.PutUint32(b[36:], r.Flags)
}
func (r *outputRec) get(b []byte) {
	r.ID, r.SrcPart, r.SrcOffset = le.Uint32(b[0:]), int32(le.Uint32(b[4:])), int64(le.Uint64(b[8:]))
	r.Worker, r.Txn, r.Partition = le.Uint32(b[16:]), le.Uint32(b[20:]), int32(le.Uint32(b[24:]))
	r.Offset, r.Flags = int64(le.Uint64(b[28:])), le.Uint32(b[36:])
}

var le = binary.LittleEndian

// Writer streams records of one kind to a file.
type Writer[T any, P record[T]] struct {
	w   *bufio.Writer
	buf [64]byte
}

// NewWriter writes to w (buffered).
func NewWriter[T any, P record[T]](w io.Writer) *Writer[T, P] {
	return &Writer[T, P]{w: bufio.NewWriterSize(w, 1<<20)}
}

// Write appends one record.
func (w *Writer[T, P]) Write(r T) error {
	p := P(&r)
	b := w.buf[:p.size()]
	p.put(b)
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	return nil
}

// Flush writes what is buffered.
func (w *Writer[T, P]) Flush() error { return w.w.Flush() }

// each reads every record of one kind from r, in order.
func each[T any, P record[T]](r io.Reader, f func(T) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var v T
	p := P(&v)
	buf := make([]byte, p.size())
	for {
		if _, err := io.ReadFull(br, buf); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("read record: %w", err)
		}
		p.get(buf)
		if err := f(v); err != nil {
			return err
		}
	}
}
