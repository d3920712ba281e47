package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// errShort is returned when a message ends before a field does.
var errShort = errors.New("message too short")

// writer appends flexible-version Kafka primitives to a byte slice.
type writer struct{ b []byte }

func (w *writer) int8(v int8)   { w.b = append(w.b, byte(v)) }
func (w *writer) int16(v int16) { w.b = binary.BigEndian.AppendUint16(w.b, uint16(v)) }
func (w *writer) int32(v int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *writer) int64(v int64) { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }
func (w *writer) uuid(v [16]byte) {
	w.b = append(w.b, v[:]...)
}
func (w *writer) uvarint(v uint32) { w.b = binary.AppendUvarint(w.b, uint64(v)) }

// compactString: length+1 as an unsigned varint, then the bytes (0 would be
// null, which no field of these messages allows).
func (w *writer) compactString(s string) {
	w.uvarint(uint32(len(s)) + 1)
	w.b = append(w.b, s...)
}

// arrayLen writes a compact array's length+1.
func (w *writer) arrayLen(n int) { w.uvarint(uint32(n) + 1) }

// tags writes a tagged-field section: count, then (tag, size, bytes) each.
func (w *writer) tags(t Tags) {
	w.uvarint(uint32(len(t)))
	for _, f := range t {
		w.uvarint(f.Tag)
		w.uvarint(uint32(len(f.Value)))
		w.b = append(w.b, f.Value...)
	}
}

// reader consumes flexible-version Kafka primitives. The first error sticks:
// every later read returns zero values, and err reports the first failure,
// so decoders read straight through and check once per element.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail(errShort)
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) int8() int8 {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return int8(b[0])
}

func (r *reader) int16() int16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(b))
}

func (r *reader) int32() int32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (r *reader) int64() int64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

func (r *reader) uuid() (v [16]byte) {
	copy(v[:], r.take(16))
	return v
}

// uvarint reads an unsigned varint of at most 32 bits (Kafka's limit for
// lengths, counts and tags).
func (r *reader) uvarint() uint32 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errors.New("bad unsigned varint"))
		return 0
	}
	if v > math.MaxUint32 {
		r.fail(fmt.Errorf("unsigned varint %d overflows 32 bits", v))
		return 0
	}
	r.b = r.b[n:]
	return uint32(v)
}

func (r *reader) compactString(field string) string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n == 0 {
		r.fail(fmt.Errorf("%s: null for a non-nullable string", field))
		return ""
	}
	return string(r.take(int(n - 1)))
}

// arrayLen reads a compact array's length. minElem is the smallest encoding
// of one element: a length the remaining bytes cannot hold is refused before
// anything is allocated, so a hostile length cannot make us allocate.
func (r *reader) arrayLen(field string, minElem int) int {
	n := r.uvarint()
	if r.err != nil {
		return 0
	}
	if n == 0 {
		r.fail(fmt.Errorf("%s: null for a non-nullable array", field))
		return 0
	}
	count := int(n - 1)
	if count > len(r.b)/minElem {
		r.fail(fmt.Errorf("%s: %d elements cannot fit in %d bytes", field, count, len(r.b)))
		return 0
	}
	return count
}

func (r *reader) tags() Tags {
	n := r.uvarint()
	if r.err != nil || n == 0 {
		return nil
	}
	if int(n) > len(r.b)/2 { // each field takes at least two bytes (tag, size 0)
		r.fail(fmt.Errorf("tagged fields: %d cannot fit in %d bytes", n, len(r.b)))
		return nil
	}
	t := make(Tags, 0, n)
	for range n {
		tag := r.uvarint()
		size := r.uvarint()
		v := r.take(int(size))
		if r.err != nil {
			return nil
		}
		t = append(t, Tag{Tag: tag, Value: append([]byte(nil), v...)})
	}
	return t
}

// done reports the first error, or trailing bytes after a complete message.
func (r *reader) done(msg string) error {
	if r.err != nil {
		return fmt.Errorf("decode %s: %w", msg, r.err)
	}
	if len(r.b) != 0 {
		return fmt.Errorf("decode %s: %d trailing bytes", msg, len(r.b))
	}
	return nil
}

// Tag is one tagged field this package does not know (KIP-482): kept so that
// a message decoded and encoded again keeps it.
type Tag struct {
	Tag   uint32
	Value []byte
}

// Tags are the unknown tagged fields of one struct, in wire order.
type Tags []Tag
