package history

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sharechaos/sharechaos/internal/golden"
)

// goldenEvents cover every field of Event, omitempty, sorted attrs and the
// string escapes of encoding/json (HTML-unsafe characters, control
// characters, U+2028/U+2029, non-ASCII kept as UTF-8).
var goldenEvents = []Event{
	{TS: 1700000000000000001, Worker: "w1.1", Type: Info, F: FStart, Realization: "ledger",
		Attrs: map[string]string{"mode": "transactional", "pid": "42", "txn_timeout": "10s", "client": "java"}},
	{TS: 1700000000000000002, Worker: "w1.1", Type: OK, F: FPoll, Records: []Rec{
		{ID: "r-000001", Partition: 0, Offset: 7, Delivery: 1}, {ID: "r-000002", Partition: 3, Offset: 1 << 40}, {ID: "r-000003", Partition: 2, Offset: 0, Delivery: 10}}},
	{TS: 1700000000000000003, Worker: "w1.1", Type: Invoke, F: FSend, Txn: 12, IDs: []string{"r-000001", "r-000003"}},
	{TS: 1700000000000000004, Worker: "w1.1", Type: Fail, F: FAck, Ack: AckRelease, Records: []Rec{{ID: "r-000001", Offset: 7, Delivery: 2}},
		Error: "in/0: InvalidRecordStateException: \"quoted\" <tag> & \\ back\tslash\nnew line\r\x01\x1f\b\f \u2028\u2029 é ✓ 😀", DurNS: 123456789},
	{TS: 1700000000000000005, Worker: "w2.3", Type: OK, F: FCommit, Txn: 3, DurNS: 5, TxnNS: 9,
		Records: []Rec{{ID: "r-9", Partition: 1, Offset: 2, Delivery: 1}}},
	{TS: 1700000000000000006, Worker: "w2.3", Type: Info, F: FFaultFired, Txn: 3, Fault: "crash-after-commit", Point: "after-commit",
		Attrs: map[string]string{"batch": "2", "action": "kill"}},
	{TS: 1700000000000000007, Worker: "w2.3", Type: Info, F: FStop},
	{TS: -1, Worker: "", Type: "", F: ""},
}

// TestGoldenEvents keeps testdata/events.golden.jsonl equal to
// encoding/json's lines for goldenEvents (go test -run TestGoldenEvents
// -update rewrites it). The Java worker's test (clients/java/worker) reads
// each line, re-encodes it with its own encoder and must get the same bytes.
func TestGoldenEvents(t *testing.T) {
	var want bytes.Buffer
	for _, e := range goldenEvents {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		want.Write(b)
		want.WriteByte('\n')
	}
	golden.Check(t, "events.golden.jsonl", want.Bytes(), "go test ./internal/history -run TestGoldenEvents")
}
