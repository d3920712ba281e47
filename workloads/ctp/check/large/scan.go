package large

import (
	"bytes"
)

// lineInfo is what a pass needs of one history line, read without decoding
// the JSON: the histories are json.Marshal's output of history.Event (fields
// in struct order, strings escaped), so the top-level ts, worker, type, f and
// txn are the first occurrences of their keys, and every record id is a
// quoted "r-DDDDDD" token. A token inside an escaped string (an error text)
// is preceded by a backslash and skipped; passes that select lines only
// over-select on anything else, and the selected lines are decoded in full.
type lineInfo struct {
	ts     int64
	worker []byte
	typ    []byte
	f      []byte
	txn    int64
	ids    []uint32
}

var (
	keyTS     = []byte(`"ts":`)
	keyWorker = []byte(`"worker":"`)
	keyType   = []byte(`"type":"`)
	keyF      = []byte(`"f":"`)
	keyTxn    = []byte(`"txn":`)
)

// headerLen is how far into a line the top-level ts, worker, type, f and
// txn are looked for first: they precede every list and map of the event.
const headerLen = 200

func scanLine(line []byte, li *lineInfo) {
	scanHeader(line, li)
	scanIDs(line, li)
}

// scanHeader reads ts, worker, type, f and txn: in json.Marshal's order
// at the start of the line when the line is the usual shape (parsed in
// place), else found by key.
func scanHeader(line []byte, li *lineInfo) {
	if fastHeader(line, li) {
		return
	}
	head := line[:min(len(line), headerLen)]
	var ok bool
	if li.ts, ok = numberAfter(head, keyTS); !ok {
		li.ts, _ = numberAfter(line, keyTS)
	}
	if li.worker = stringAfter(head, keyWorker); li.worker == nil {
		li.worker = stringAfter(line, keyWorker)
	}
	if li.typ = stringAfter(head, keyType); li.typ == nil {
		li.typ = stringAfter(line, keyType)
	}
	if li.f = stringAfter(head, keyF); li.f == nil {
		li.f = stringAfter(line, keyF)
	}
	// txn is omitted when 0; a "txn" attribute has a string value, which
	// numberAfter rejects, and inside an error text the key is escaped.
	li.txn, _ = numberAfter(head, keyTxn)
}

// fastHeader parses {"ts":N,"worker":"S","type":"S","f":"S"[,"txn":N] in
// place; false when the line starts otherwise.
func fastHeader(line []byte, li *lineInfo) bool {
	p := 0
	lit := func(b []byte) bool {
		if !bytes.HasPrefix(line[p:], b) {
			return false
		}
		p += len(b)
		return true
	}
	num := func() (int64, bool) {
		var n int64
		q := p
		for p < len(line) && line[p] >= '0' && line[p] <= '9' {
			n = n*10 + int64(line[p]-'0')
			p++
		}
		return n, p > q
	}
	str := func() ([]byte, bool) {
		k := bytes.IndexByte(line[p:], '"')
		if k < 0 || bytes.IndexByte(line[p:p+k], '\\') >= 0 {
			return nil, false
		}
		v := line[p : p+k]
		p += k + 1
		return v, true
	}
	var ok bool
	if !lit([]byte(`{"ts":`)) {
		return false
	}
	if li.ts, ok = num(); !ok || !lit([]byte(`,"worker":"`)) {
		return false
	}
	if li.worker, ok = str(); !ok || !lit([]byte(`,"type":"`)) {
		return false
	}
	if li.typ, ok = str(); !ok || !lit([]byte(`,"f":"`)) {
		return false
	}
	if li.f, ok = str(); !ok {
		return false
	}
	li.txn = 0
	if lit([]byte(`,"txn":`)) {
		if li.txn, ok = num(); !ok {
			return false
		}
	}
	return true
}

// scanIDs collects the record ids of the line: every "r-DDDDDD" token
// not inside an escaped string. It looks for the '-' (rarer in a history
// line than the quote) and checks what surrounds it.
func scanIDs(line []byte, li *lineInfo) {
	li.ids = li.ids[:0]
	i := 0
	for {
		k := bytes.IndexByte(line[i:], '-')
		if k < 0 {
			return
		}
		j := i + k // line[j] == '-'
		i = j + 1
		if j < 2 || line[j-1] != 'r' || line[j-2] != '"' || (j >= 3 && line[j-3] == '\\') {
			continue
		}
		var n uint64
		d := i
		for d < len(line) && line[d] >= '0' && line[d] <= '9' && d-i < 10 {
			n = n*10 + uint64(line[d]-'0')
			d++
		}
		if d-i >= 6 && d < len(line) && line[d] == '"' && n < uint64(noID) {
			li.ids = append(li.ids, uint32(n))
		}
		i = d
	}
}

// numberAfter is the integer right after the first occurrence of key.
func numberAfter(line, key []byte) (int64, bool) {
	i := bytes.Index(line, key)
	if i < 0 {
		return 0, false
	}
	j := i + len(key)
	neg := j < len(line) && line[j] == '-'
	if neg {
		j++
	}
	var n int64
	k := j
	for k < len(line) && line[k] >= '0' && line[k] <= '9' {
		n = n*10 + int64(line[k]-'0')
		k++
	}
	if k == j {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// stringAfter is the unescaped-quote-terminated string after key.
func stringAfter(line, key []byte) []byte {
	i := bytes.Index(line, key)
	if i < 0 {
		return nil
	}
	j := i + len(key)
	k := bytes.IndexByte(line[j:], '"')
	if k < 0 {
		return nil
	}
	return line[j : j+k]
}
