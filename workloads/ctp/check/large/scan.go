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
	tokID     = []byte(`"r-`)
)

func scanLine(line []byte, li *lineInfo) {
	li.ts, _ = numberAfter(line, keyTS)
	li.worker = stringAfter(line, keyWorker)
	li.typ = stringAfter(line, keyType)
	li.f = stringAfter(line, keyF)
	li.txn, _ = numberAfter(line, keyTxn)
	li.ids = li.ids[:0]
	rest := line
	for {
		i := bytes.Index(rest, tokID)
		if i < 0 {
			return
		}
		if i > 0 && rest[i-1] == '\\' {
			rest = rest[i+3:]
			continue
		}
		j := i + 3
		var n uint64
		k := j
		for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' && k-j < 10 {
			n = n*10 + uint64(rest[k]-'0')
			k++
		}
		if k-j >= 6 && k < len(rest) && rest[k] == '"' && n < uint64(noID) {
			li.ids = append(li.ids, uint32(n))
		}
		rest = rest[k:]
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
